/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * The Rewind guest/host ABI: the one header shared by the guest kernel patch
 * (installed as <asm/rewind_abi.h>), the guest runtime and the VMM.
 *
 * Discovery: CPUID leaf 0x40000000 returns the signature "RewindRewind" in
 * EBX, ECX, EDX and the highest Rewind leaf in EAX; leaf 0x40000001 returns
 * REWIND_ABI_VERSION in EAX.
 *
 * Calls: 32-bit port I/O on the ports below. Most are writes (OUTL of a
 * value); two are reads (INL): REWIND_PORT_COUNTER and REWIND_PORT_RUNTIME.
 * REWIND_PORT_COUNTER takes both (the runtime's
 * preemption request is an OUTL). The VMM refuses other sizes and any other
 * direction as a guest fault. Every such access is one "step".
 * Who uses them: the guest kernel, rewind-init (user space, which drops its
 * ioperm in the job's process) and a job's instrumented runtime (ioperm on
 * REWIND_PORT_COUNTER and REWIND_PORT_RUNTIME only). REWIND_PORT_SHARED and
 * REWIND_PORT_POWER written from user mode are a guest fault.
 * Guest-physical addresses handed over are checked by the VMM against guest
 * RAM; a bad one ends the run as a guest fault, never harms the VMM.
 */
#ifndef _ASM_X86_REWIND_ABI_H
#define _ASM_X86_REWIND_ABI_H

#include <linux/types.h>

#define REWIND_CPUID_SIGNATURE 0x40000000u
#define REWIND_CPUID_FEATURES  0x40000001u
#define REWIND_SIGNATURE_EBX   0x69776552u /* "Rewi" */
#define REWIND_SIGNATURE_ECX   0x6552646eu /* "ndRe" */
#define REWIND_SIGNATURE_EDX   0x646e6977u /* "wind" */
#define REWIND_ABI_VERSION     8u

/*
 * Ports, 4 apart: a 32-bit access touches 4 byte ports, so ioperm(port, 4, 1)
 * grants one port and ioperm(REWIND_PORT_BASE, REWIND_PORT_SPAN, 1) all.
 */
#define REWIND_PORT_BASE 0x5200u
#define REWIND_PORT(n)	 (REWIND_PORT_BASE + 4u * (n))
enum rewind_port {
	/* value: page frame number (gpa >> 12) of the guest's struct rewind_shared */
	REWIND_PORT_SHARED = REWIND_PORT(0),
	/* value: gpa of a struct rewind_event (header + payload within one page) */
	REWIND_PORT_EVENT = REWIND_PORT(1),
	/* value ignored; the CPU is idle: the VMM jumps virtual time to the
	 * armed timer and injects its interrupt (interrupts are on at the exit
	 * when none was pending, else off until the STI that follows) */
	REWIND_PORT_IDLE = REWIND_PORT(2),
	/* value ignored; a task called sched_yield() */
	REWIND_PORT_YIELD = REWIND_PORT(3),
	/* value: enum rewind_power */
	REWIND_PORT_POWER = REWIND_PORT(4),
	/* value: the job's wait status (as from waitpid), from rewind-init; the
	 * VMM ends the run here (nothing the guest does after can change it) */
	REWIND_PORT_JOB_STATUS = REWIND_PORT(5),
	/* value: the user address of rewind-init's seed buffer (REWIND_SEED_WORDS
	 * 32-bit words, 4-byte aligned, within one resident page);
	 * rewind-init booted and prepared the job (the keyframe point). The
	 * VMM writes the execution's seed there before the guest runs on, at
	 * this exit and at every restore of the keyframe, and rewind-init
	 * reseeds the kernel RNG from it: a run restored from the keyframe
	 * and a run booted from scratch get the same randomness from the same
	 * seed, and the seed costs no exit of its own */
	REWIND_PORT_READY = REWIND_PORT(6),
	/* 7: no port (the seed's read until ABI 5); an access is a guest fault */
	/* value ignored; the context-switch ring in struct rewind_shared is
	 * full: the VMM takes every record in it (switch_tail = switch_head) */
	REWIND_PORT_SWITCHES = REWIND_PORT(8),
	/* INL from an instrumented user program (guest/runtime/counter.c, the
	 * software counter): its countdown of executed basic blocks reached 0,
	 * or, on its first read, it starts counting. RDI holds the address of
	 * the block (the return address of its trace-pc call), which the VMM
	 * records where it preempts. Returns the next countdown (at least 1),
	 * with REWIND_COUNTER_PREEMPT set when the program is to be preempted
	 * at this block: it stores the countdown, then writes this port (OUTL,
	 * value ignored) and the VMM preempts it at that exit. (Preempting at
	 * the read itself would switch threads before the countdown, which all
	 * the program's threads share, is stored: their blocks would be lost.)
	 * RSI holds the event's data address (0: none) and RCX what it is:
	 * a kind in bits 8..15 (1 read, 2 write, 3 atomic read-modify-write,
	 * 4 synchronisation operation, 5 basic block) and the access size in
	 * bytes in bits 0..7 (guest/runtime/runtime.h RT_EV_*); a process's
	 * first read (its runtime starts, or it was forked) passes 0 in both.
	 * RCX's bits 32..63 name the reading process (its pid; 0 from the guest
	 * kernel and from older runtimes): each process counts down its own
	 * countdown, and the VMM keeps one per process
	 * (REWIND_COUNTER_PROCESS_SHIFT). */
	REWIND_PORT_COUNTER = REWIND_PORT(9),
	/* INL from the instrumented runtime: RDI holds a call (enum
	 * rewind_runtime_call), RSI and RCX its arguments; returns the answer */
	REWIND_PORT_RUNTIME = REWIND_PORT(10),
	/* value ignored; user-space clock reads moved the guest's clock
	 * (clock_ahead_ns) past the armed timer: the exit lets the VMM fire it
	 * (the VMM takes clock_ahead_ns into its clock at every exit) */
	REWIND_PORT_CLOCK = REWIND_PORT(11),
	REWIND_PORT_END = REWIND_PORT(12)
};
/* The ports an instrumented job's runtime uses, first and count of byte ports. */
#define REWIND_RUNTIME_PORTS	  REWIND_PORT_COUNTER
#define REWIND_RUNTIME_PORTS_SPAN (REWIND_PORT_RUNTIME + 4u - REWIND_PORT_COUNTER)
/*
 * A REWIND_PORT_COUNTER read answers a countdown (what counts: see
 * guest/runtime/) in its low bits, and what to do at this point above it.
 */
#define REWIND_COUNTER_COUNT_MASK 0x00ffffffu /* the next countdown, at least 1 */
#define REWIND_COUNTER_PRIO_SHIFT 24	      /* bits 24..30: a SCHED_FIFO priority */
#define REWIND_COUNTER_PRIO_MASK  0x7fu	      /* 0: keep the thread's priority */
#define REWIND_COUNTER_PREEMPT	  (1u << 31)  /* preempt here */
/* No priority: every thread of the process leaves SCHED_FIFO for the
 * kernel's fair scheduler, for the rest of the run (pct mode's fair
 * continuation, vmm/counter.c). */
#define REWIND_COUNTER_PRIO_FAIR 0x7fu
/* A counter read's RCX: what the event is below, the reading process above. */
#define REWIND_COUNTER_PROCESS_SHIFT 32
/*
 * What a schedule event is (a counter read's RCX bits 0..15, the VMM's event
 * log): its kind in bits 8..15, the access size in bytes in bits 0..7 (0 for
 * a synchronisation operation or a basic block; 255 for 255 or more). The
 * runtime (guest/runtime/runtime.h), the guest kernel's events for a plain
 * job (linux/patches/0016), the VMM and the harness all read it from here.
 */
enum rewind_sched_event {
	REWIND_SCHED_READ = 1,	 /* a load (an atomic load too) */
	REWIND_SCHED_WRITE = 2,	 /* a store (an atomic store too) */
	REWIND_SCHED_ATOMIC = 3, /* an atomic read-modify-write */
	REWIND_SCHED_SYNC = 4,	 /* a lock, unlock, condition-variable or thread operation */
	REWIND_SCHED_BLOCK = 5,	 /* a basic block of a trace-pc build */
};
#define REWIND_SCHED_KIND_SHIFT	   8
#define REWIND_SCHED_SIZE_MASK	   0xffu
#define REWIND_SCHED_WHAT(kind)	   ((__u32)(kind) << REWIND_SCHED_KIND_SHIFT)
#define REWIND_SCHED_KIND_OF(what) (((what) >> REWIND_SCHED_KIND_SHIFT) & 0xffu)
#define REWIND_SCHED_SIZE_OF(what) ((what)&REWIND_SCHED_SIZE_MASK)

/* Calls on REWIND_PORT_RUNTIME (RDI): from a job's instrumented runtime, or
 * from the guest kernel where it counts a plain job's events. */
enum rewind_runtime_call {
	/* the SCHED_FIFO priority (1..99) of the next thread the job creates
	 * (its main thread first), 0 to leave scheduling alone */
	REWIND_RT_THREAD_PRIORITY = 1,
	/* RSI: the page-aligned user address of the runtime's feedback map
	 * (REWIND_FEEDBACK_BYTES, resident), RCX: the process id; answers 1
	 * if the VMM reads it */
	REWIND_RT_FEEDBACK = 2,
	/* the program is about to exit: the VMM reads the feedback map now;
	 * RSI: what is left of the countdown (its events so far are counted),
	 * RCX: the process (as in its counter reads) */
	REWIND_RT_FLUSH = 3,
	/* from the guest kernel, before its first REWIND_PORT_COUNTER read: it
	 * counts the events of a process built without the runtime (its
	 * threads' accesses off their own stacks, REWIND_SHARED_TRAP_MEMORY);
	 * answers 0 */
	REWIND_RT_KERNEL_EVENTS = 4,
	/* RSI: the page-aligned user address of the runtime's site map
	 * (REWIND_SITE_BYTES, resident); answers 1 if the VMM filled it in and
	 * this run counts racy events (pct mode, the input's racy-events
	 * flag), 0 if every event counts in full */
	REWIND_RT_SITES = 5,
};
#define REWIND_FEEDBACK_BYTES 8192u /* one bit per feature (reads-from, lock order) */
/*
 * The site map: one bit per hash of an event's code address, set for the
 * quiet sites: seen in the job's profile runs, and never touching data
 * another thread also touched there. In a run that counts racy events, of
 * the events at quiet sites every REWIND_SITE_WEIGHT-th counts (so none is
 * out of a change point's reach, and a spin there still ends its time
 * slice), and every other event counts as one.
 */
#define REWIND_SITE_BYTES  8192u
#define REWIND_SITE_WEIGHT 64u

/* The bit of the site map for code address pc. */
static inline __u32 rewind_site_bit(__u64 pc)
{
	return (__u32)((pc * 0x9e3779b97f4a7c15ull) >> 32) % (REWIND_SITE_BYTES * 8u);
}
#define REWIND_SEED_WORDS 8
#define REWIND_PORT_SPAN  (REWIND_PORT_END - REWIND_PORT_BASE) /* byte ports in use */

enum rewind_power {
	REWIND_POWER_OFF = 0,
	REWIND_POWER_REBOOT = 1,
	REWIND_POWER_HALT = 2,
	REWIND_POWER_PANIC = 3,
};

/*
 * Interrupts: the VMM injects REWIND_CALLBACK_VECTOR through the local APIC,
 * only while the vCPU is stopped at an exit the guest made. The handler reads
 * and clears the reason bits in struct rewind_shared.pending (atomic xchg).
 */
#define REWIND_CALLBACK_VECTOR 0xf3	 /* HYPERVISOR_CALLBACK_VECTOR */
#define REWIND_PENDING_TIMER   (1u << 0) /* the armed one-shot timer expired */
#define REWIND_PENDING_RESCHED (1u << 1) /* preempt the running task now */
#define REWIND_PENDING_STALL                                                                       \
	(1u << 2) /* the running task sleeps stall_ns when                                         \
		     it next returns to user space */
/*
 * Preempt the running user task step_insns of its user-mode instructions
 * from now (preempt-insns), counted in the guest: the kernel sets TF in
 * the task's saved user flags unless the task set TF itself, counts the
 * single-step traps in its #DB handler (the task never sees those of
 * Rewind's TF; it keeps its own, through POPF, IRET and sigreturn), and at
 * the count clears Rewind's TF, writes the landing's user address to
 * step_pc and preempts the task. step_state says where it stands.
 */
#define REWIND_PENDING_STEP (1u << 3)

enum rewind_step_state {
	REWIND_STEP_IDLE = 0,	  /* no landing asked for */
	REWIND_STEP_ASKED = 1,	  /* the VMM raised REWIND_PENDING_STEP */
	REWIND_STEP_COUNTING = 2, /* the guest counts the running task's instructions */
	REWIND_STEP_LANDED = 3,	  /* counted to step_insns; the task was preempted */
	/* nothing to count (the CPU was idle, in a kernel thread or in init), or
	 * the task exited or exec'ed before the count */
	REWIND_STEP_DROPPED = 4,
};

/* One context switch: the thread ids (0: idle) the CPU went from and to. */
struct rewind_switch {
	__u32 prev_tid;
	__u32 next_tid;
};
#define REWIND_SWITCH_RING 128 /* records; a power of two */

/*
 * One page shared by guest and VMM, registered with REWIND_PORT_SHARED.
 * The VMM refreshes the host-written fields before every guest entry, so
 * the guest reads virtual time without an exit.
 */
struct rewind_shared {
	/* written by the VMM */
	__u64 now_ns;	   /* virtual time since power-on */
	__u64 epoch_ns;	   /* wall clock (UNIX ns) at power-on */
	__u32 pending;	   /* REWIND_PENDING_* bits; the guest clears them */
	__u32 abi_version; /* REWIND_ABI_VERSION */
	__u64 tsc_khz;	   /* rate of the emulated RDTSC for user space */
	/* written by the guest */
	__u64 timer_deadline; /* absolute now_ns of the one-shot timer, 0 = none */
	/* written by the VMM, read with REWIND_PENDING_STALL */
	__u64 stall_ns;
	/* preempt-insns: the VMM writes step_insns and REWIND_STEP_ASKED
	 * before REWIND_PENDING_STEP, the guest the rest */
	__u32 step_insns; /* user-mode instructions to count, at least 1 */
	__u32 step_state; /* REWIND_STEP_* */
	__u64 step_pc;	  /* the landing's user address (REWIND_STEP_LANDED) */
	__u32 step_done;  /* instructions counted so far (guest) */
	__u32 flags;	  /* written by the VMM: REWIND_SHARED_* */
	/*
	 * Context switches, without an exit each: the guest writes record
	 * switch_head % REWIND_SWITCH_RING, then increments switch_head; the
	 * VMM takes the records up to switch_head at every exit and sets
	 * switch_tail. A guest that finds the ring full makes an exit first
	 * (REWIND_PORT_SWITCHES). More than REWIND_SWITCH_RING pending is a
	 * guest fault.
	 */
	__u32 switch_head; /* written by the guest */
	__u32 switch_tail; /* written by the VMM */
	struct rewind_switch switches[REWIND_SWITCH_RING];
	/*
	 * Virtual time user space's clock reads moved on since the last exit
	 * (written by the guest): every clock_gettime, gettimeofday, time and
	 * RDTSC of user space adds REWIND_CLOCK_READ_NS, and the guest's clock
	 * is now_ns + clock_ahead_ns. At every exit the VMM adds it to its
	 * clock and sets it to 0. A program that waits for time by polling the
	 * clock then sees it pass, deterministically; once the clock passes
	 * the armed timer, the guest writes REWIND_PORT_CLOCK.
	 */
	__u64 clock_ahead_ns;
	/*
	 * The tasks runnable on the guest's CPU, the running one included and
	 * idle not (written by the guest wherever its run queue changes, one
	 * store, no exit): 1 while the running task is the only one. When no
	 * exit came for the stuck budget, a job whose only task is in user
	 * space with no other task runnable is a computation, not a wait that
	 * keeps another task off the CPU (vmm/vm.c). 0: a guest kernel that
	 * does not write it.
	 */
	__u32 nr_runnable;
	__u8 reserved[4096 - 92 - 8 * REWIND_SWITCH_RING];
};
/*
 * flags: the guest kernel makes schedule events of a process's accesses to
 * memory off its threads' own stacks (pct mode for a program built without
 * Rewind's runtime: linux/patches/0016), if this is set when the process
 * creates its first thread. The VMM sets it in pct mode while no runtime
 * counts events. The kernel then says so (REWIND_RT_KERNEL_EVENTS) and
 * counts them as the runtime does: REWIND_PORT_COUNTER reads (RDI the user
 * instruction, RSI the data address, RCX a read or a write),
 * REWIND_RT_THREAD_PRIORITY for the process's main thread and each new
 * thread, REWIND_RT_FLUSH when the process ends.
 */
#define REWIND_SHARED_TRAP_MEMORY (1u << 0)
#define REWIND_CLOCK_READ_NS	  1000u /* what one user-space clock read costs */
#define REWIND_CLOCK_AHEAD_LIMIT  (3600ull * 1000000000ull) /* more between exits: a guest fault */

/* Event records, handed over with REWIND_PORT_EVENT; the VMM stamps each with its step. */
enum rewind_event_type {
	REWIND_EV_EXEC = 1,   /* payload: path NUL argv[0] NUL argv[1] ...; arg0: argc */
	REWIND_EV_FORK = 2,   /* arg0: child tid, arg1: child tgid, arg2: 1 if a thread */
	REWIND_EV_EXIT = 3,   /* arg0: exit code (wait status form), arg1: 1 if the whole process */
	REWIND_EV_SIGNAL = 4, /* arg0: signo, arg1: si_code, arg2: fault address */
	REWIND_EV_OUTPUT = 5, /* payload: bytes a task wrote to its stdout/stderr terminal */
	REWIND_EV_CONSOLE = 6, /* payload: kernel console text */
	REWIND_EV_PANIC = 7,   /* payload: panic message */
	/* never sent as a record: the VMM makes one per struct rewind_switch;
	 * tid: next_tid, arg0: prev_tid, arg1: next_tid */
	REWIND_EV_SWITCH = 8,
};

#define REWIND_EVENT_MAX 4096u /* header + payload never cross this */
struct rewind_event {
	__u32 type; /* enum rewind_event_type */
	__u32 len;  /* payload bytes, at most REWIND_EVENT_MAX - sizeof(header) */
	__u32 pid;  /* thread group id of the task the event is about (or current) */
	__u32 tid;  /* thread id */
	__u64 args[3];
	__u8 payload[];
};
#define REWIND_EVENT_PAYLOAD_MAX (REWIND_EVENT_MAX - sizeof(struct rewind_event))

/* The emulated user-space RDTSC runs at this rate: ticks = now_ns * tsc_khz / 1e6. */
#define REWIND_TSC_KHZ 1000000u /* 1 GHz: one tick per virtual ns */

/*
 * A walk (pct mode, an input with the walk flag): the instrumented runtime
 * draws which thread runs next at its own schedule points, from a seed and
 * each thread's remaining events (guest/runtime/walk.c); the VMM stays out
 * of the per-event path. The guest kernel has no part in it.
 *
 * The runtime's start calls REWIND_RT_THREAD_PRIORITY with RSI the
 * page-aligned user address of its struct rewind_walk (resident) and RCX
 * its process id. The answer's bits 0..7 are the main thread's priority as
 * always; its bits 8 and up say what the runtime does with the page:
 *   REWIND_WALK_ON: this run is a walk; the VMM wrote the seed and the
 *     profile's events of each thread into the page;
 *   REWIND_WALK_COUNT: the job's profile run; the runtime counts each
 *     thread's events into events[] and the VMM reads them at
 *     REWIND_RT_FLUSH from that process.
 * RSI 0 (a new thread's priority, the guest kernel, an older runtime): the
 * priority alone. Threads are numbered in the order the process created
 * them, the main thread 0.
 */
#define REWIND_WALK_PRIO_MASK 0xffu	/* the answer's priority */
#define REWIND_WALK_ON	      (1u << 8) /* a walk: seed and events are written */
#define REWIND_WALK_COUNT     (1u << 9) /* count each thread's events into events[] */
#define REWIND_WALK_THREADS   1020u	/* threads a page holds: one page in all */

struct rewind_walk {
	__u64 seed;    /* the walk's seed (REWIND_WALK_ON) */
	__u32 threads; /* events[] entries filled in (0: no profile, every weight equal) */
	__u32 reserved;
	__u32 events[REWIND_WALK_THREADS]; /* each thread's events, by creation order */
};

/*
 * A walk's SCHED_FIFO priorities: every thread rests at the VMM's priority
 * (the same for all threads, vmm/pct.c), the thread the walk chose runs at
 * REWIND_WALK_PRIO_RUN, a new thread starts at REWIND_WALK_PRIO_START only
 * to register itself, then rests.
 */
#define REWIND_WALK_PRIO_REST  50u
#define REWIND_WALK_PRIO_RUN   97u
#define REWIND_WALK_PRIO_START 98u

#endif /* _ASM_X86_REWIND_ABI_H */
