/* SPDX-License-Identifier: MIT */
/*
 * The entry points gcc's -fsanitize=thread instrumentation calls (compile
 * only: the program is linked with this runtime, never with libtsan). Each
 * load or store on memory that is not the thread's own stack, and each
 * atomic or volatile access anywhere, is a schedule event, counted before the access happens
 * (an atomic on a stack is one another thread shares: a count that main
 * waits for on its own stack while a pool's workers add to it), so a
 * preemption or a
 * priority change can land between any two of them (between the load and
 * the store of `counter++`, for one). Atomics keep their semantics: each is
 * performed here with the real atomic operation (always sequentially
 * consistent, which is at least as strong as what the program asked for).
 */
#include "guest/runtime/runtime.h"

#include <stddef.h>

/* An access of size bytes at pc, shared or atomic (before it happens). */
static inline void event_at(uintptr_t pc, uintptr_t a, int store, unsigned long size)
{
	rt_event(pc, a, (store ? RT_EV_WRITE : RT_EV_READ) | RT_EV_SIZE(size));
	if (store) {
		rt_feedback_store(pc, a);
		rt_spin_store(a);
	} else {
		rt_feedback_load(pc, a);
		rt_spin_load(a, size);
	}
}

/* A plain access of size bytes at pc (before it happens). */
static inline void access_at(uintptr_t pc, const volatile void *addr, int store, unsigned long size)
{
	uintptr_t a = (uintptr_t)addr;

	if (!rt_on_own_stack(a))
		event_at(pc, a, store, size);
}

/*
 * A volatile access of size bytes at pc (guest/rewind-cc compiles with
 * tsan-distinguish-volatile): an event wherever it is, as an atomic is.
 * Code from before C11 waits on a volatile flag or count, on its own stack
 * too (a pool's caller polling a count its workers add to): such a load is
 * meant for other threads, and without an event the spin never gives the
 * CPU away.
 */
static inline void volatile_at(uintptr_t pc, const volatile void *addr, int store,
			       unsigned long size)
{
	event_at(pc, (uintptr_t)addr, store, size);
}

/* An atomic read-modify-write of size bytes at pc: it reads (what it read from) and writes. */
static inline void rmw_at(uintptr_t pc, const volatile void *addr, unsigned long size)
{
	uintptr_t a = (uintptr_t)addr;

	rt_event(pc, a, RT_EV_ATOMIC | RT_EV_SIZE(size));
	rt_feedback_load(pc, a);
	rt_feedback_store(pc, a);
}

/* The entry point name(addr): an access of size bytes, taken by handle (access_at, volatile_at). */
#define ACCESS_ENTRY(name, handle, store, size)                                                    \
	void name(void *addr);                                                                     \
	void name(void *addr)                                                                      \
	{                                                                                          \
		handle(RT_CALLER(), addr, store, size);                                            \
	}
#define ACCESS_SIZES(prefix, handle, store)                                                        \
	ACCESS_ENTRY(prefix##1, handle, store, 1)                                                  \
	ACCESS_ENTRY(prefix##2, handle, store, 2)                                                  \
	ACCESS_ENTRY(prefix##4, handle, store, 4)                                                  \
	ACCESS_ENTRY(prefix##8, handle, store, 8)                                                  \
	ACCESS_ENTRY(prefix##16, handle, store, 16)

ACCESS_SIZES(__tsan_read, access_at, 0)
ACCESS_SIZES(__tsan_write, access_at, 1)
ACCESS_SIZES(__tsan_unaligned_read, access_at, 0)
ACCESS_SIZES(__tsan_unaligned_write, access_at, 1)
ACCESS_SIZES(__tsan_volatile_read, volatile_at, 0)
ACCESS_SIZES(__tsan_volatile_write, volatile_at, 1)

void __tsan_read_range(void *addr, unsigned long size);
void __tsan_read_range(void *addr, unsigned long size)
{
	if (size)
		access_at(RT_CALLER(), addr, 0, size);
}

void __tsan_write_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size)
{
	if (size)
		access_at(RT_CALLER(), addr, 1, size);
}

/* C++ virtual calls: the vtable pointer is an ordinary shared word. */
void __tsan_vptr_update(void **vptr, void *value);
void __tsan_vptr_update(void **vptr, void *value)
{
	(void)value;
	access_at(RT_CALLER(), vptr, 1, sizeof(*vptr));
}

void __tsan_vptr_read(void **vptr);
void __tsan_vptr_read(void **vptr)
{
	access_at(RT_CALLER(), vptr, 0, sizeof(*vptr));
}

/* Nothing to do: the runtime starts in its own constructor. */
void __tsan_init(void);
void __tsan_init(void)
{
}

void __tsan_func_entry(void *pc);
void __tsan_func_entry(void *pc)
{
	(void)pc;
}

void __tsan_func_exit(void);
void __tsan_func_exit(void)
{
}

#define SC __ATOMIC_SEQ_CST

/* The atomics of one size: every operation gcc may call for type T. */
#define ATOMICS(n, T)                                                                              \
	T __tsan_atomic##n##_load(const volatile T *a, int mo);                                    \
	T __tsan_atomic##n##_load(const volatile T *a, int mo)                                     \
	{                                                                                          \
		(void)mo;                                                                          \
		event_at(RT_CALLER(), (uintptr_t)a, 0, sizeof(T));                                 \
		return __atomic_load_n(a, SC);                                                     \
	}                                                                                          \
	void __tsan_atomic##n##_store(volatile T *a, T v, int mo);                                 \
	void __tsan_atomic##n##_store(volatile T *a, T v, int mo)                                  \
	{                                                                                          \
		(void)mo;                                                                          \
		event_at(RT_CALLER(), (uintptr_t)a, 1, sizeof(T));                                 \
		__atomic_store_n(a, v, SC);                                                        \
	}                                                                                          \
	RMW(n, T, exchange, __atomic_exchange_n)                                                   \
	RMW(n, T, fetch_add, __atomic_fetch_add)                                                   \
	RMW(n, T, fetch_sub, __atomic_fetch_sub)                                                   \
	RMW(n, T, fetch_and, __atomic_fetch_and)                                                   \
	RMW(n, T, fetch_or, __atomic_fetch_or)                                                     \
	RMW(n, T, fetch_xor, __atomic_fetch_xor)                                                   \
	RMW(n, T, fetch_nand, __atomic_fetch_nand)                                                 \
	CAS(n, T, compare_exchange_strong, 0)                                                      \
	CAS(n, T, compare_exchange_weak, 1)                                                        \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo);       \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)        \
	{                                                                                          \
		(void)mo;                                                                          \
		(void)fmo;                                                                         \
		rmw_at(RT_CALLER(), a, sizeof(T));                                                 \
		__atomic_compare_exchange_n(a, &c, v, 0, SC, SC);                                  \
		return c;                                                                          \
	}

#define RMW(n, T, op, builtin)                                                                     \
	T __tsan_atomic##n##_##op(volatile T *a, T v, int mo);                                     \
	T __tsan_atomic##n##_##op(volatile T *a, T v, int mo)                                      \
	{                                                                                          \
		(void)mo;                                                                          \
		rmw_at(RT_CALLER(), a, sizeof(T));                                                 \
		return builtin(a, v, SC);                                                          \
	}

#define CAS(n, T, op, weak)                                                                        \
	int __tsan_atomic##n##_##op(volatile T *a, T *c, T v, int mo, int fmo);                    \
	int __tsan_atomic##n##_##op(volatile T *a, T *c, T v, int mo, int fmo)                     \
	{                                                                                          \
		(void)mo;                                                                          \
		(void)fmo;                                                                         \
		rmw_at(RT_CALLER(), a, sizeof(T));                                                 \
		return __atomic_compare_exchange_n(a, c, v, weak, SC, SC);                         \
	}

ATOMICS(8, unsigned char)
ATOMICS(16, unsigned short)
ATOMICS(32, unsigned int)
ATOMICS(64, unsigned long)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(SC);
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(SC);
}
