/* SPDX-License-Identifier: MIT */
/*
 * exec: where one execution's time goes. Boots a job to its keyframe as
 * rewind-harness does (the same executor), runs each input once to warm up
 * (and profile a pct job), then runs N executions round-robin over the
 * inputs with the VMM's counters timing (vmm/stats.h) and prints, per
 * execution: exits by reason and Rewind port, KVM's own in-kernel exit and
 * fault counters (its binary stats, KVM_GET_STATS_FD), ioctls by kind
 * (counted by wrapping ioctl at link time: -Wl,--wrap=ioctl, this program
 * only), time in KVM_RUN, in the restore (by part) and in the VMM, and the
 * floor: steps x one raw exit + dirtied pages x the per-page copy. Every
 * execution of an input must give its first trace hash.
 *
 * usage: exec --runs N --exit-ns NS [--label TEXT] [--kernel FILE]
 *             [--add HOST:GUEST]... INPUT... [-- COMMAND ARGS...]
 *   NS: one raw KVM exit (bench/kvm_exit_loop) measured in the same run.
 * Run it through bench/exec (or bench/thread-cost), which measures NS and
 * picks the jobs.
 */
#include "harness/executor.h"
#include "harness/job.h"
#include "lib/file.h"
#include "lib/log.h"
#include "rewind/abi.h"
#include "schedule/input.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_INPUTS    16
#define MAX_IOCTLS    48
#define MAX_KVM_STATS 160
#define KVM_NAME_MAX  64

/* --- ioctls by kind: every ioctl the VMM objects make goes through here --- */

struct ioctl_count {
	unsigned long request;
	uint64_t n;
};

static struct ioctl_count ioctl_counts[MAX_IOCTLS];
static size_t ioctl_kinds;

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	size_t i = 0;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	while (i < ioctl_kinds && ioctl_counts[i].request != request)
		i++;
	if (i == ioctl_kinds && ioctl_kinds < MAX_IOCTLS)
		ioctl_counts[ioctl_kinds++].request = request;
	if (i < ioctl_kinds)
		ioctl_counts[i].n++;
	return __real_ioctl(fd, request, arg);
}

#define NAMED(r)                                                                                   \
	{                                                                                          \
		r, #r                                                                              \
	}
static const struct {
	unsigned long request;
	const char *name;
} ioctl_names[] = {
	NAMED(KVM_RUN),
	NAMED(KVM_GET_REGS),
	NAMED(KVM_SET_REGS),
	NAMED(KVM_GET_SREGS),
	NAMED(KVM_SET_SREGS),
	NAMED(KVM_GET_FPU),
	NAMED(KVM_SET_FPU),
	NAMED(KVM_GET_DEBUGREGS),
	NAMED(KVM_SET_DEBUGREGS),
	NAMED(KVM_GET_MP_STATE),
	NAMED(KVM_SET_MP_STATE),
	NAMED(KVM_GET_LAPIC),
	NAMED(KVM_SET_LAPIC),
	NAMED(KVM_GET_VCPU_EVENTS),
	NAMED(KVM_SET_VCPU_EVENTS),
	NAMED(KVM_GET_MSRS),
	NAMED(KVM_SET_MSRS),
	NAMED(KVM_SIGNAL_MSI),
	NAMED(KVM_SET_GUEST_DEBUG),
	NAMED(KVM_TRANSLATE),
	NAMED(KVM_GET_DIRTY_LOG),
	NAMED(KVM_CLEAR_DIRTY_LOG),
	NAMED(KVM_SET_USER_MEMORY_REGION),
	NAMED(KVM_ENABLE_CAP),
	NAMED(KVM_CHECK_EXTENSION),
};

static const char *ioctl_name(unsigned long request)
{
	static char hex[32];

	for (size_t i = 0; i < sizeof(ioctl_names) / sizeof(ioctl_names[0]); i++)
		if (ioctl_names[i].request == request)
			return ioctl_names[i].name + 4; /* without "KVM_" */
	snprintf(hex, sizeof(hex), "%#lx", request);
	return hex;
}

/* --- KVM's binary statistics (Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD) --- */

struct kvm_stats {
	int fd;
	size_t count;
	char name[MAX_KVM_STATS][KVM_NAME_MAX];
	uint64_t offset[MAX_KVM_STATS]; /* of the value, in the file */
	uint64_t before[MAX_KVM_STATS], after[MAX_KVM_STATS];
};

/* Opens the statistics of a VM or vCPU fd: the cumulative single-value counters. */
static int kvm_stats_open(struct kvm_stats *st, int owner_fd)
{
	struct kvm_stats_header hdr;
	size_t desc_size;
	uint8_t *descs;

	st->count = 0;
	st->fd = ioctl(owner_fd, KVM_GET_STATS_FD, NULL);
	if (st->fd < 0) {
		rw_err_errno(errno, "KVM_GET_STATS_FD (KVM's own exit counters need Linux 5.14)");
		return -1;
	}
	if (pread(st->fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		rw_err("cannot read the header of KVM's statistics");
		return -1;
	}
	desc_size = sizeof(struct kvm_stats_desc) + hdr.name_size;
	descs = malloc(desc_size * hdr.num_desc);
	if (!descs || pread(st->fd, descs, desc_size * hdr.num_desc, hdr.desc_offset) !=
			      (ssize_t)(desc_size * hdr.num_desc)) {
		rw_err("cannot read the %u descriptors of KVM's statistics", hdr.num_desc);
		free(descs);
		return -1;
	}
	for (uint32_t i = 0; i < hdr.num_desc && st->count < MAX_KVM_STATS; i++) {
		const struct kvm_stats_desc *d = (const void *)(descs + desc_size * i);

		if ((d->flags & KVM_STATS_TYPE_MASK) != KVM_STATS_TYPE_CUMULATIVE || d->size != 1)
			continue;
		snprintf(st->name[st->count], KVM_NAME_MAX, "%.*s", (int)hdr.name_size, d->name);
		st->offset[st->count++] = hdr.data_offset + d->offset;
	}
	free(descs);
	return 0;
}

static int kvm_stats_read(struct kvm_stats *st, uint64_t *values)
{
	for (size_t i = 0; i < st->count; i++) {
		if (pread(st->fd, &values[i], sizeof(values[i]), (off_t)st->offset[i]) !=
		    (ssize_t)sizeof(values[i])) {
			rw_err_errno(errno, "reading KVM's statistic %s", st->name[i]);
			return -1;
		}
	}
	return 0;
}

static uint64_t kvm_stat(const struct kvm_stats *st, const char *name)
{
	for (size_t i = 0; i < st->count; i++)
		if (!strcmp(st->name[i], name))
			return st->after[i] - st->before[i];
	return 0;
}

/* --- the run --- */

struct options {
	uint64_t runs;
	double exit_ns;
	const char *label;
	const char *kernel;	      /* NULL: the default guest kernel */
	const char *adds[MAX_INPUTS]; /* --add HOST:GUEST, as rewind-harness takes it */
	size_t n_adds;
	const char *inputs[MAX_INPUTS];
	size_t n_inputs;
	char **command;
	size_t command_len;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){.runs = 100, .label = "job"};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			o->runs = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--exit-ns") && i + 1 < argc) {
			o->exit_ns = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--label") && i + 1 < argc) {
			o->label = argv[++i];
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			o->kernel = argv[++i];
		} else if (!strcmp(argv[i], "--add") && i + 1 < argc && o->n_adds < MAX_INPUTS) {
			o->adds[o->n_adds++] = argv[++i];
		} else if (!strcmp(argv[i], "--")) {
			o->command = argv + i + 1;
			o->command_len = (size_t)(argc - i - 1);
			break;
		} else if (o->n_inputs < MAX_INPUTS && argv[i][0] != '-') {
			o->inputs[o->n_inputs++] = argv[i];
		} else {
			fprintf(stderr,
				"usage: exec --runs N --exit-ns NS [--label TEXT] [--kernel "
				"FILE] [--add HOST:GUEST]... INPUT... [-- COMMAND ARGS...]\n");
			return -1;
		}
	}
	if (!o->n_inputs || !o->runs || o->exit_ns <= 0) {
		fprintf(stderr, "exec: needs inputs, --runs N > 0 and --exit-ns NS > 0\n");
		return -1;
	}
	return 0;
}

static int load_inputs(const struct options *o, struct exec_input *in)
{
	for (size_t i = 0; i < o->n_inputs; i++) {
		uint8_t *data;
		size_t len;
		char why[160];

		if (file_read_max(o->inputs[i], INPUT_MAX_SIZE, "input", &data, &len) < 0)
			return -1;
		if (input_parse(data, len, &in[i], why, sizeof(why)) < 0) {
			rw_err("%s: %s", o->inputs[i], why);
			free(data);
			return -1;
		}
		free(data);
	}
	return 0;
}

/* One page copied, as the restore copies it, from the keyframe's RAM: the floor's per-page cost. */
static double page_copy_us(const struct mem_snapshot *mem)
{
	enum { PAGES = 1024, ROUNDS = 5 };
	static uint8_t scratch[PAGES][MEM_PAGE_SIZE];
	uint64_t stride = mem->size / MEM_PAGE_SIZE / PAGES;
	double best = 1e9;

	for (int r = 0; r < ROUNDS; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (uint64_t p = 0; p < PAGES; p++)
			memcpy(scratch[p], mem->copy + p * stride * MEM_PAGE_SIZE, MEM_PAGE_SIZE);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double us =
			((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
			1e3 / PAGES;
		best = us < best ? us : best;
	}
	return best;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const exit_names[VM_STATS_REASONS] = {
	[KVM_EXIT_IO] = "io",
	[KVM_EXIT_HLT] = "hlt",
	[KVM_EXIT_MMIO] = "mmio",
	[KVM_EXIT_DEBUG] = "debug",
	[KVM_EXIT_SHUTDOWN] = "shutdown",
	[KVM_EXIT_IRQ_WINDOW_OPEN] = "irq-window",
	[KVM_EXIT_INTR] = "intr",
	[KVM_EXIT_X86_RDMSR] = "rdmsr",
	[KVM_EXIT_X86_WRMSR] = "wrmsr",
	[KVM_EXIT_INTERNAL_ERROR] = "internal-error",
	[KVM_EXIT_FAIL_ENTRY] = "fail-entry",
};

static const char *const port_names[VM_STATS_PORTS + 1] = {
	"shared",  "event",   "idle", "yield", "power", "job-status", "ready", "7",	"switches",
	"counter", "runtime", "11",   "12",    "13",	"14",	      "15",    "other",
};

static const char *const event_names[VM_STATS_EVENTS] = {
	"?", "exec", "fork", "exit", "signal", "output", "console", "panic",
};

static void print_kvm_stats(const char *what, const struct kvm_stats *st, double n)
{
	int col = 0;

	printf("    %s (per execution):", what);
	for (size_t i = 0; i < st->count; i++) {
		uint64_t d = st->after[i] - st->before[i];

		if (!d)
			continue;
		if (col++ % 6 == 0)
			printf("\n      ");
		printf(" %s %.1f", st->name[i], (double)d / n);
	}
	printf(col ? "\n" : " none\n");
}

int main(int argc, char **argv)
{
	static struct harness_job job;
	static struct executor ex;
	static struct kvm_stats vcpu_stats, vm_stats_kvm;
	struct exec_input in[MAX_INPUTS];
	uint64_t hash[MAX_INPUTS], steps = 0, ioctl_before[MAX_IOCTLS] = {0};
	struct options o;
	struct executor_config cfg;
	struct exec_result res;
	struct vm_stats *st;
	double t0, total_s, n;

	if (parse_options(argc, argv, &o) < 0 || load_inputs(&o, in) < 0 ||
	    job_init_defaults(&job) < 0 ||
	    (o.command && job_set_command(&job, o.command, o.command_len) < 0) ||
	    (o.kernel && job_set_kernel(&job, o.kernel) < 0))
		return 2;
	for (size_t i = 0; i < o.n_adds; i++)
		if (job_add_file(&job, o.adds[i]) < 0)
			return 2;
	cfg = (struct executor_config){.run = job.run,
				       .wall_ms = job.wall_ms,
				       .slice_blocks = job.slice_blocks,
				       .block_ns = job.block_ns};
	if (executor_open(&ex, &cfg) < 0)
		return 1;
	st = &ex.vm.km.stats;
	/* warm-up: each input once (a pct job's profile run comes first) */
	for (size_t i = 0; i < o.n_inputs; i++) {
		if (executor_run(&ex, &in[i], &res) < 0)
			return 1;
		hash[i] = res.trace_hash;
	}
	if (kvm_stats_open(&vcpu_stats, ex.vm.km.vcpu_fd) < 0 ||
	    kvm_stats_open(&vm_stats_kvm, ex.vm.km.vm_fd) < 0 ||
	    kvm_stats_read(&vcpu_stats, vcpu_stats.before) < 0 ||
	    kvm_stats_read(&vm_stats_kvm, vm_stats_kvm.before) < 0)
		return 1;
	for (size_t i = 0; i < ioctl_kinds; i++)
		ioctl_before[i] = ioctl_counts[i].n;
	vm_stats_reset(st);
	st->timing = true;
	t0 = now_s();
	for (uint64_t r = 0; r < o.runs; r++) {
		size_t i = r % o.n_inputs; /* NOLINT(clang-analyzer-core.DivideZero): never 0 */

		if (executor_run(&ex, &in[i], &res) < 0)
			return 1;
		if (res.trace_hash != hash[i]) {
			rw_err("%s: execution %" PRIu64 " of %s gave trace %016" PRIx64
			       ", its first gave %016" PRIx64,
			       o.label, r, o.inputs[i], res.trace_hash, hash[i]);
			return 1;
		}
		steps += ex.vm.steps - ex.vm.ready_step;
	}
	total_s = now_s() - t0;
	st->timing = false;
	if (kvm_stats_read(&vcpu_stats, vcpu_stats.after) < 0 ||
	    kvm_stats_read(&vm_stats_kvm, vm_stats_kvm.after) < 0)
		return 1;

	n = (double)o.runs;
	{
		double exec_us = total_s * 1e6 / n, run_us = (double)st->run_ns / 1e3 / n;
		double dl_us = (double)st->dirty_log_ns / 1e3 / n;
		double copy_us = (double)st->copy_ns / 1e3 / n;
		double vcpu_us = (double)st->vcpu_ns / 1e3 / n,
		       vmm_us = (double)st->vmm_ns / 1e3 / n;
		double restore_us = dl_us + copy_us + vcpu_us + vmm_us;
		double dog_us = (double)st->watchdog_ns / 1e3 / n;
		double pages = (double)st->restore_pages / n;
		double copied = (double)(st->restore_pages + st->restore_vmm_pages) / n;
		double restore_page_us = copied > 0 ? copy_us / copied : 0;
		double page_us = page_copy_us(&ex.kf.mem);
		double step_n = (double)steps / n, exits = (double)(st->runs - st->interrupted) / n;
		double floor_us = step_n * o.exit_ns / 1e3 + pages * page_us;
		double all_exits = (double)kvm_stat(&vcpu_stats, "exits") / n;
		double exits_us = all_exits * o.exit_ns / 1e3;

		printf("%s: %" PRIu64 " executions over %zu input(s), every trace as its input's "
		       "first\n  traces:",
		       o.label, o.runs, o.n_inputs);
		for (size_t i = 0; i < o.n_inputs; i++)
			printf(" %s %016" PRIx64, o.inputs[i], hash[i]);
		printf("\n");
		printf("  per execution:        %10.1f us  (%.1f exec/s)\n", exec_us,
		       1e6 / exec_us);
		printf("  steps:                %10.1f     (exits the guest made)\n", step_n);
		printf("  exits to the VMM:     %10.1f     (KVM_RUN calls %.1f, by a signal "
		       "%.2f)\n",
		       exits, (double)st->runs / n, (double)st->interrupted / n);
		printf("    by reason:");
		for (int r = 0; r < VM_STATS_REASONS; r++)
			if (st->exits[r])
				printf(" %s %.1f", exit_names[r] ? exit_names[r] : "?",
				       (double)st->exits[r] / n);
		printf("\n    I/O by port:");
		for (int p = 0; p <= VM_STATS_PORTS; p++)
			if (st->io_ports[p])
				printf(" %s %.1f", port_names[p], (double)st->io_ports[p] / n);
		printf("%s\n", st->unseen_reads ? " (event-log reads, no step, included)" : "");
		printf("  in-kernel exits: %.1f (io %.1f, hlt %.1f, irq %.1f, irq-window %.1f), "
		       "page faults taken %.1f, fixed %.1f\n",
		       (double)kvm_stat(&vcpu_stats, "exits") / n,
		       (double)kvm_stat(&vcpu_stats, "io_exits") / n,
		       (double)kvm_stat(&vcpu_stats, "halt_exits") / n,
		       (double)kvm_stat(&vcpu_stats, "irq_exits") / n,
		       (double)kvm_stat(&vcpu_stats, "irq_window_exits") / n,
		       (double)kvm_stat(&vcpu_stats, "pf_taken") / n,
		       (double)kvm_stat(&vcpu_stats, "pf_fixed") / n);
		print_kvm_stats("KVM vCPU statistics", &vcpu_stats, n);
		print_kvm_stats("KVM VM statistics", &vm_stats_kvm, n);
		printf("  ioctls per execution (per exit):");
		for (size_t i = 0, col = 0; i < ioctl_kinds; i++) {
			double d = (double)(ioctl_counts[i].n - ioctl_before[i]) / n;

			if (d <= 0)
				continue;
			if (col++ % 4 == 0)
				printf("\n     ");
			printf(" %s %.1f (%.2f)", ioctl_name(ioctl_counts[i].request), d,
			       exits > 0 ? d / exits : 0);
		}
		printf("\n  pages dirtied:        %10.1f     (copied back; +%.1f the VMM wrote; "
		       "%.1f "
		       "named by the log but unchanged, %.1f write-protected again)\n",
		       pages, (double)st->restore_vmm_pages / n, (double)st->restore_unchanged / n,
		       (double)st->restore_reprotected / n);
		printf("  time in KVM_RUN:      %10.1f us  (%.0f%%): %.1f exits of any kind x %.1f "
		       "us = "
		       "%.1f us, the rest (guest code, est.) %.1f us\n",
		       run_us, 100 * run_us / exec_us, all_exits, o.exit_ns / 1e3, exits_us,
		       run_us - exits_us);
		printf("    by the exit that ended it (us each; the raw exit included):");
		for (int p = 0; p <= VM_STATS_PORTS; p++)
			if (st->io_ports[p])
				printf(" %s %.0f", port_names[p],
				       (double)st->io_port_run_ns[p] / 1e3 /
					       (double)st->io_ports[p]);
		printf("\n    events by kind (per execution x us each):");
		for (int e = 0; e < VM_STATS_EVENTS; e++)
			if (st->events[e])
				printf(" %s %.1f x %.0f", event_names[e], (double)st->events[e] / n,
				       (double)st->event_run_ns[e] / 1e3 / (double)st->events[e]);
		printf("\n");
		printf("  time in the restore:  %10.1f us  (%.0f%%): dirty log %.1f, pages %.1f "
		       "(%.2f us a page copied), vCPU state %.1f, VMM state %.1f\n",
		       restore_us, 100 * restore_us / exec_us, dl_us, copy_us, restore_page_us,
		       vcpu_us, vmm_us);
		printf("  time in the VMM:      %10.1f us  (%.0f%%; the watchdog thread %.1f)\n",
		       exec_us - run_us - restore_us,
		       100 * (exec_us - run_us - restore_us) / exec_us, dog_us);
		printf("  floor:                %10.1f us  (%.1f steps x %.1f us a raw exit + %.1f "
		       "pages "
		       "x %.2f us a page memcpy)\n",
		       floor_us, step_n, o.exit_ns / 1e3, pages, page_us);
		printf("  per execution / floor: %9.2f     (without the guest code's estimate: "
		       "%.2f)\n",
		       exec_us / floor_us, (exec_us - (run_us - exits_us)) / floor_us);
	}
	executor_close(&ex);
	job_free(&job);
	return 0;
}
