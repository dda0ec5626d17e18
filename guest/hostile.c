/* SPDX-License-Identifier: MIT */
/*
 * hostile: a hostile guest for the VMM's robustness test. With ioperm on the
 * Rewind ports it makes invalid calls: garbage values (0, 1, 0xffffffff,
 * unaligned and huge guest-physical addresses, the last page of guest RAM and
 * beyond it, forged event records with bad types and lengths, power states
 * that do not exist, a second READY), wrong access sizes and reads (outb,
 * outw, inb, inw, inl) to Rewind ports, accesses to unknown ports (the
 * seed's old port among them), a counter write with no preemption due, and
 * the frame of a page-cache page of /bin/hello offered as the shared page
 * ("probe poison"). Other cases attack without ports: a flood of output,
 * the farthest timer deadline the guest kernel can arm, and the trap flag
 * set by the program itself. Each is announced on stdout first. The VMM
 * should end the run with its exact outcome (tests/kvm/test_hostile.c): a
 * clear "guest fault" at the first invalid call, and never be harmed.
 *
 * usage: hostile [--force] [list | CASE...]
 * With no CASE, runs every case in order; "list" prints them. It refuses to
 * run outside Rewind without --force: on a real machine, as root, it would
 * poke real I/O ports.
 */
#include "guest/util.h"
#include "rewind/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define PAGE_SIZE 4096u
#define MAX_CASES 64

/* ACT: no port access, the case's own action (act). */
enum access { OUT_B, OUT_W, OUT_L, IN_B, IN_W, IN_L, ACT };

struct hostile_case {
	char name[32];
	enum access access;
	uint16_t port;
	uint32_t value;
	void (*act)(void);
	char what[128];
};

struct case_list {
	struct hostile_case items[MAX_CASES];
	size_t count;
};

/* What the cases need to know about the guest; *_known false where it could not be found. */
struct guest_facts {
	uint64_t ram_end; /* one past the highest byte of System RAM */
	bool ram_known;
	unsigned char *page; /* a locked page of ours, for forged event records */
	uint64_t page_pfn;
	bool page_known;
	uint64_t hello_pfn; /* a page-cache page of /bin/hello */
	bool hello_known;
};

static void add(struct case_list *l, const char *name, enum access access, uint16_t port,
		uint32_t value, const char *fmt, ...) GU_PRINTF(6, 7);

static struct hostile_case *add_case(struct case_list *l, const char *name, const char *fmt,
				     va_list ap) GU_PRINTF(3, 0);

static struct hostile_case *add_case(struct case_list *l, const char *name, const char *fmt,
				     va_list ap)
{
	struct hostile_case *c;

	if (l->count == MAX_CASES)
		gu_die("more than %d cases: raise MAX_CASES", MAX_CASES);
	c = &l->items[l->count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	return c;
}

static void add(struct case_list *l, const char *name, enum access access, uint16_t port,
		uint32_t value, const char *fmt, ...)
{
	struct hostile_case *c;
	va_list ap;

	va_start(ap, fmt);
	c = add_case(l, name, fmt, ap);
	va_end(ap);
	c->access = access;
	c->port = port;
	c->value = value;
}

/* A case that makes no port access: act does the attack. */
static void add_act(struct case_list *l, const char *name, void (*act)(void), const char *fmt, ...)
	GU_PRINTF(4, 5);

static void add_act(struct case_list *l, const char *name, void (*act)(void), const char *fmt, ...)
{
	struct hostile_case *c;
	va_list ap;

	va_start(ap, fmt);
	c = add_case(l, name, fmt, ap);
	va_end(ap);
	c->access = ACT;
	c->act = act;
}

/* Highest end of "System RAM" in /proc/iomem (root sees real addresses). */
static void find_ram_end(struct guest_facts *f)
{
	FILE *iomem = fopen("/proc/iomem", "re");
	char line[256];

	if (!iomem) {
		gu_warn_errno("open /proc/iomem (RAM-end cases left out)");
		return;
	}
	while (fgets(line, sizeof(line), iomem)) {
		uint64_t start, end;
		int used = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " : %n", &start, &end, &used) == 2 &&
		    used > 0 && strcmp(line + used, "System RAM\n") == 0 && end > start &&
		    end + 1 > f->ram_end) {
			f->ram_end = end + 1;
			f->ram_known = true;
		}
	}
	if (fclose(iomem) != 0)
		gu_warn_errno("close /proc/iomem");
	if (!f->ram_known)
		gu_say_fd(2, "hostile: /proc/iomem shows no System RAM (RAM-end cases left out)\n");
}

/* The frame of the page at addr (mapped and present) from /proc/self/pagemap (root
 * only), below 4 GiB so that its gpa fits 32 bits; false, with a warning, if not found. */
static bool frame_of(const void *addr, const char *what, uint64_t *pfn)
{
	uint64_t entry;
	bool found = false;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		gu_warn_errno("open /proc/self/pagemap (%s left out)", what);
		return false;
	}
	if (pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)addr / PAGE_SIZE * 8)) !=
	    (ssize_t)sizeof(entry))
		gu_warn_errno("read /proc/self/pagemap (%s left out)", what);
	else if (!(entry >> 63) || !(entry & ((1ull << 55) - 1)))
		gu_say_fd(2, "hostile: pagemap hides the frame (%s left out)\n", what);
	else if ((entry & ((1ull << 55) - 1)) >= (1ull << 20))
		gu_say_fd(2, "hostile: the page lies above 4 GiB (%s left out)\n", what);
	else {
		*pfn = entry & ((1ull << 55) - 1);
		found = true;
	}
	close(fd);
	return found;
}

/* Locks one page of ours and finds its frame. */
static void find_own_page(struct guest_facts *f)
{
	f->page = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->page == MAP_FAILED)
		gu_die_errno("mmap of one page");
	memset(f->page, 0, PAGE_SIZE);
	if (mlock(f->page, PAGE_SIZE) < 0) {
		gu_warn_errno("mlock (forged-event cases left out)");
		return;
	}
	f->page_known = frame_of(f->page, "forged-event cases", &f->page_pfn);
}

/* The frame of the first page of /bin/hello in the page cache, mapped shared. */
static void find_hello_page(struct guest_facts *f)
{
	int fd = open("/bin/hello", O_RDONLY | O_CLOEXEC);
	volatile const unsigned char *at;

	if (fd < 0) {
		gu_warn_errno("open /bin/hello (probe-poison left out)");
		return;
	}
	at = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (at == MAP_FAILED) {
		gu_warn_errno("mmap of /bin/hello (probe-poison left out)");
		return;
	}
	(void)at[0]; /* fault it in: its frame is the page cache's */
	f->hello_known = frame_of((const void *)at, "probe-poison", &f->hello_pfn);
}

/* Writes a forged event header at offset in our page; returns its gpa. */
static uint32_t forge_event(const struct guest_facts *f, size_t offset, uint32_t type, uint32_t len)
{
	struct rewind_event ev = {.type = type, .len = len, .pid = 1, .tid = 1};
	size_t room = PAGE_SIZE - offset;

	/* A header that crosses the page end is cut where our page ends. */
	memcpy(f->page + offset, &ev, room < sizeof(ev) ? room : sizeof(ev));
	return (uint32_t)(f->page_pfn * PAGE_SIZE + offset);
}

static void add_shared_cases(struct case_list *l, const struct guest_facts *f)
{
	const uint16_t p = REWIND_PORT_SHARED;

	add(l, "shared-max", OUT_L, p, 0xffffffff, "pfn 0xffffffff, far beyond guest RAM");
	add(l, "shared-4g", OUT_L, p, 0x100000, "pfn of guest-physical 4 GiB");
	if (f->ram_known) {
		uint32_t last = (uint32_t)((f->ram_end - 1) / PAGE_SIZE);

		add(l, "shared-beyond-ram", OUT_L, p, last + 1, "pfn just past guest RAM");
		add(l, "shared-last-page", OUT_L, p, last, "pfn of the last page of guest RAM");
	}
	add(l, "shared-0", OUT_L, p, 0, "pfn 0");
	add(l, "shared-1", OUT_L, p, 1, "pfn 1");
	if (f->page_known)
		add(l, "shared-user-page", OUT_L, p, (uint32_t)f->page_pfn,
		    "pfn of a user-space page (re-registers the shared page)");
	if (f->hello_known)
		add(l, "probe-poison", OUT_L, p, (uint32_t)f->hello_pfn,
		    "pfn of a page-cache page of /bin/hello: the VMM must not clear it");
}

static void add_event_cases(struct case_list *l, const struct guest_facts *f)
{
	const uint16_t p = REWIND_PORT_EVENT;
	const uint32_t header = sizeof(struct rewind_event);

	add(l, "event-max", OUT_L, p, 0xffffffff, "gpa 0xffffffff, far beyond guest RAM");
	add(l, "event-unaligned", OUT_L, p, 0x100003, "unaligned gpa 0x100003");
	add(l, "event-1", OUT_L, p, 1, "gpa 1");
	add(l, "event-0", OUT_L, p, 0, "gpa 0");
	if (f->ram_known && f->ram_end <= 0xffffffffu) {
		add(l, "event-ram-end", OUT_L, p, (uint32_t)f->ram_end, "gpa just past guest RAM");
		add(l, "event-ram-last-byte", OUT_L, p, (uint32_t)(f->ram_end - 1),
		    "gpa of the last byte of RAM: the header crosses the end of RAM");
	}
	if (!f->page_known)
		return;
	add(l, "event-bad-type", OUT_L, p, forge_event(f, 0, 0xdeadbeef, 0),
	    "forged record of type 0xdeadbeef");
	add(l, "event-type-0", OUT_L, p, forge_event(f, 64, 0, 0), "forged record of type 0");
	add(l, "event-huge-len", OUT_L, p, forge_event(f, 128, REWIND_EV_OUTPUT, 0xffffffff),
	    "forged OUTPUT record with len 0xffffffff");
	add(l, "event-len-over-max", OUT_L, p,
	    forge_event(f, 192, REWIND_EV_OUTPUT, (uint32_t)REWIND_EVENT_PAYLOAD_MAX + 1),
	    "forged OUTPUT record with len REWIND_EVENT_PAYLOAD_MAX + 1");
	add(l, "event-payload-crosses-page", OUT_L, p,
	    forge_event(f, PAGE_SIZE - header - 8, REWIND_EV_OUTPUT, 16),
	    "forged OUTPUT record whose payload crosses the page end");
	add(l, "event-header-crosses-page", OUT_L, p,
	    forge_event(f, PAGE_SIZE - header / 2, REWIND_EV_OUTPUT, 1),
	    "forged record whose header crosses the page end");
}

static void add_other_port_cases(struct case_list *l)
{
	add(l, "idle-from-user", OUT_L, REWIND_PORT_IDLE, 0,
	    "IDLE from user space, interrupts enabled");
	add(l, "yield-garbage", OUT_L, REWIND_PORT_YIELD, 0xffffffff,
	    "YIELD with a garbage value (the value is ignored: allowed)");
	add(l, "power-4", OUT_L, REWIND_PORT_POWER, 4, "power state 4 (no such state)");
	add(l, "power-max", OUT_L, REWIND_PORT_POWER, 0xffffffff, "power state 0xffffffff");
	add(l, "job-status-max", OUT_L, REWIND_PORT_JOB_STATUS, 0xffffffff,
	    "job status 0xffffffff (not a wait status), not from init");
	add(l, "job-status-early", OUT_L, REWIND_PORT_JOB_STATUS, 0,
	    "job status 0 while the job still runs, not from init");
	add(l, "ready-again", OUT_L, REWIND_PORT_READY, 0, "a second READY, not from init");
	add(l, "ready-garbage", OUT_L, REWIND_PORT_READY, 0xffffffff, "READY with 0xffffffff");
	add(l, "old-seed-port", IN_L, REWIND_PORT(7), 0,
	    "a read of port 7, the seed's until ABI 5 (the seed is in memory now)");
	add(l, "counter-write", OUT_L, REWIND_PORT_COUNTER, 0,
	    "a counter write with no preemption due");
}

/* Output forever: the trace must meet its budget, never grow without end. */
static void act_flood(void)
{
	static char block[4096];

	memset(block, 'F', sizeof(block));
	for (;;)
		if (gu_write_all(1, block, sizeof(block)) < 0)
			gu_die("write to stdout failed");
}

/*
 * The farthest deadline the guest kernel arms: its time is a signed 64-bit
 * count of ns (KTIME_MAX, a sleep "forever", arms no timer at all), so an
 * absolute sleep to the last whole second before it, about 292 years. The
 * VMM jumps there at once (deadline + late saturates, it never wraps) and
 * fires the timer then, never early. The guest kernel then catches its
 * timekeeping up one second at a time (accumulate_nsecs_to_secs), billions
 * of iterations without an exit: the run ends stuck in the guest kernel, at
 * the deadline's virtual time. Should the kernel ever get through, the
 * program checks that it did not wake early.
 */
static void act_timer_far(void)
{
	const struct timespec until = {.tv_sec = INT64_MAX / 1000000000 - 1, .tv_nsec = 0};
	struct timespec now;
	int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);

	if (rc)
		gu_die("clock_nanosleep to %lld s: %s", (long long)until.tv_sec, strerror(rc));
	now = gu_now(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	if (now.tv_sec < until.tv_sec)
		gu_die("timer-far: woke early, at %lld.%09ld s", (long long)now.tv_sec,
		       now.tv_nsec);
	gu_say("hostile: timer-far: woke at %lld.%09ld s\n", (long long)now.tv_sec, now.tv_nsec);
}

#define RFLAGS_TF  0x100ull
#define TRAPS_WANT 100

static volatile sig_atomic_t traps;

/* One single-step trap of ours; the 100th clears the trap flag. */
static void on_trap(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;

	(void)sig;
	(void)info;
	if (++traps >= TRAPS_WANT)
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)RFLAGS_TF;
}

/* The program sets TF itself: every trap is its own SIGTRAP, none is the VMM's. */
static void act_trap_flag(void)
{
	struct sigaction sa = {.sa_sigaction = on_trap, .sa_flags = SA_SIGINFO};

	if (sigaction(SIGTRAP, &sa, NULL) < 0)
		gu_die_errno("sigaction(SIGTRAP)");
	/* below the red zone: pushf must not overwrite the compiler's locals */
	__asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
			 "pushfq\n\t"
			 "orq %0, (%%rsp)\n\t"
			 "popfq\n\t"
			 "lea 128(%%rsp), %%rsp"
			 :
			 : "i"(RFLAGS_TF)
			 : "memory", "cc");
	while (traps < TRAPS_WANT)
		;
	gu_say("hostile: trap-flag: %d traps, all delivered to the program\n", (int)traps);
}

static void add_act_cases(struct case_list *l)
{
	add_act(l, "flood", act_flood, "write to stdout forever");
	add_act(l, "timer-far", act_timer_far,
		"sleep to CLOCK_MONOTONIC %lld s, the last second before KTIME_MAX",
		(long long)(INT64_MAX / 1000000000 - 1));
	add_act(l, "trap-flag", act_trap_flag,
		"set the trap flag and take %d SIGTRAPs, then clear it", TRAPS_WANT);
}

static void add_access_cases(struct case_list *l)
{
	add(l, "inl-ready", IN_L, REWIND_PORT_READY, 0, "a read of a Rewind port");
	add(l, "inb-shared", IN_B, REWIND_PORT_SHARED, 0, "a byte read of a Rewind port");
	add(l, "inw-event", IN_W, REWIND_PORT_EVENT, 0, "a word read of a Rewind port");
	add(l, "outb-power", OUT_B, REWIND_PORT_POWER, 0xff, "a byte write to a Rewind port");
	add(l, "outw-job-status", OUT_W, REWIND_PORT_JOB_STATUS, 0xffff,
	    "a word write to a Rewind port");
	add(l, "outl-below", OUT_L, REWIND_PORT_BASE - 1, 0, "the port below the Rewind ports");
	add(l, "outl-end", OUT_L, REWIND_PORT_END, 0, "the port after the Rewind ports");
	add(l, "inl-end", IN_L, REWIND_PORT_END, 0, "a read of the port after the Rewind ports");
	add(l, "outl-far", OUT_L, 0x52ff, 0xffffffff, "an unknown port");
	add(l, "outb-unknown", OUT_B, 0x5300, 0x41, "a byte write to an unknown port");
	add(l, "outl-pci-config", OUT_L, 0xcf8, 0x80000000, "the PCI config address port");
}

static void build_cases(struct case_list *l, const struct guest_facts *f)
{
	add_shared_cases(l, f);
	add_event_cases(l, f);
	add_other_port_cases(l);
	add_access_cases(l);
	add_act_cases(l);
}

static const char *port_name(uint16_t port)
{
	static const char *const names[] = {"SHARED",	"EVENT",      "IDLE",	 "YIELD",
					    "POWER",	"JOB_STATUS", "READY",	 "SEED",
					    "SWITCHES", "COUNTER",    "RUNTIME", "CLOCK"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == REWIND_PORT_SPAN / 4,
		       "a name for every Rewind port");

	if (port >= REWIND_PORT_BASE && port < REWIND_PORT_END &&
	    (port - REWIND_PORT_BASE) % 4 == 0)
		return names[(port - REWIND_PORT_BASE) / 4];
	return "unknown";
}

static const char *const access_names[] = {"outb", "outw", "outl", "inb", "inw", "inl"};
static const unsigned access_width[] = {1, 2, 4, 1, 2, 4};

static void describe(const struct hostile_case *c, const char *prefix)
{
	if (c->access == ACT)
		gu_say("%s%s: %s\n", prefix, c->name, c->what);
	else if (c->access >= IN_B)
		gu_say("%s%s: %s(port 0x%04x %s): %s\n", prefix, c->name, access_names[c->access],
		       c->port, port_name(c->port), c->what);
	else
		gu_say("%s%s: %s(0x%08" PRIx32 ", port 0x%04x %s): %s\n", prefix, c->name,
		       access_names[c->access], c->value, c->port, port_name(c->port), c->what);
}

static void run_case(const struct hostile_case *c)
{
	uint32_t got = 0;

	if (c->access == ACT) {
		describe(c, "hostile: ");
		c->act();
		return;
	}
	if (ioperm(c->port, access_width[c->access], 1) < 0)
		gu_die_errno("ioperm(0x%04x, %u)", c->port, access_width[c->access]);
	describe(c, "hostile: ");
	switch (c->access) {
	case OUT_B:
		outb((uint8_t)c->value, c->port);
		break;
	case OUT_W:
		outw((uint16_t)c->value, c->port);
		break;
	case OUT_L:
		outl(c->value, c->port);
		break;
	case IN_B:
		got = inb(c->port);
		break;
	case IN_W:
		got = inw(c->port);
		break;
	case IN_L:
		got = inl(c->port);
		break;
	case ACT:
		break;
	}
	if (c->access >= IN_B)
		gu_say("hostile: %s: read 0x%08" PRIx32 "\n", c->name, got);
}

static const struct hostile_case *find_case(const struct case_list *l, const char *name)
{
	for (size_t i = 0; i < l->count; i++)
		if (strcmp(l->items[i].name, name) == 0)
			return &l->items[i];
	gu_die("no case named '%s' (hostile list shows them)", name);
}

int main(int argc, char **argv)
{
	static struct case_list cases;
	struct guest_facts facts = {0};
	bool force = argc > 1 && strcmp(argv[1], "--force") == 0;
	int first = force ? 2 : 1;

	find_ram_end(&facts);
	find_own_page(&facts);
	find_hello_page(&facts);
	build_cases(&cases, &facts);
	if (argc > first && strcmp(argv[first], "list") == 0) {
		for (size_t i = 0; i < cases.count; i++)
			describe(&cases.items[i], "");
		return 0;
	}
	if (!force && !gu_under_rewind())
		gu_die("not under the Rewind VMM (no CPUID signature): refusing to poke I/O ports "
		       "(--force to do it anyway)");
	for (int i = first; i < argc; i++)
		find_case(&cases, argv[i]); /* every name checked before the first write */
	if (argc > first)
		for (int i = first; i < argc; i++)
			run_case(find_case(&cases, argv[i]));
	else
		for (size_t i = 0; i < cases.count; i++)
			run_case(&cases.items[i]);
	gu_say("hostile: done: the VMM let every call through\n");
	return 0;
}
