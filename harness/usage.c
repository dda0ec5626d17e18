/* SPDX-License-Identifier: MIT */
/* rewind-harness --help (harness/usage.h). */
#include "harness/usage.h"

#include "harness/coverage.h"
#include "harness/job.h"

#include <string.h>

void cli_usage(FILE *to)
{
	fprintf(to,
		"usage: afl-fuzz -i corpus/ledger -o OUT -- rewind-harness [OPTIONS] @@\n"
		"       rewind-harness [OPTIONS] INPUT       run one input, print output and "
		"outcome\n"
		"       rewind-harness --replay FILE... [--repeat N]  replay crash artifacts,\n"
		"                                            bundles or raw inputs (N times each)\n"
		"       rewind-harness --replay ARTIFACT [JOB OPTIONS] [--expect-fixed] [-- CMD]\n"
		"                                            replay it with the job changed (a "
		"fix)\n"
		"       rewind-harness --explain FILE [-o JSON]  why it fails: minimal schedule,\n"
		"                                            where it lands, window, racing pair\n"
		"       rewind-harness --bundle ARTIFACT -o DIR  a crash bundle that replays on\n"
		"                                            any machine (--replay DIR)\n"
		"       rewind-harness --to-json FILE        print an input (or an artifact's) as "
		"JSON\n"
		"       rewind-harness --from-json FILE -o OUT  write the input of a JSON input "
		"or\n"
		"                                            artifact as the binary afl-fuzz uses\n"
		"       rewind-harness --version             version, guest ABI, CPU model, "
		"kernel\n"
		"\n"
		"Runs a job in Rewind's deterministic guest, once per input; an input is a seed\n"
		"plus a schedule of injections (docs/input-format.md). Under afl-fuzz it is a\n"
		"forkserver target: the guest boots once, every execution restores the keyframe\n"
		"taken when the job was about to start. Coverage comes from the guest's event\n"
		"trace; every failure (non-zero exit, fatal signal, panic, deadlock, livelock,\n"
		"stuck) is reported as a crash and saved as a self-contained JSON artifact.\n"
		"\n"
		"Job (default: the bundled racy example %s; docs/harness.md):\n"
		"  --job FILE          a job file (JSON: kernel, initramfs, command, add, user,\n"
		"                      cwd, env, mem_mib, epoch_s, step_budget, stuck_ms,\n"
		"                      wall_ms, slice_blocks, block_ns, skip_status)\n"
		"  --kernel FILE       guest bzImage (default: build/guest/bzImage)\n"
		"  --initramfs FILE    base initramfs (default: build/guest/initramfs.cpio);\n"
		"                      --initrd FILE: the same (rewind run's older name)\n"
		"  --add HOST[:GUEST]  put a host file into the guest (default GUEST: /bin/NAME),\n"
		"                      or a directory and all in it (default GUEST: its own\n"
		"                      path); a dynamically linked program brings its loader\n"
		"                      and shared libraries\n"
		"  --user USER         run the job as USER (rewind, nobody, UID[:GID]; default\n"
		"                      root); the files it adds are its own\n"
		"  --cwd DIR           the job's working directory, made if missing (default /)\n"
		"  --env NAME=VALUE    set in the job's environment (repeatable)\n"
		"  --skip-status N     the job's exit code N means \"skipped\" (libuv 7,\n"
		"                      autotools 77): not a failure (default 0: none)\n"
		"  --mem SIZE          guest RAM: 128M, 1G, ... (K, M or G; a bare number is\n"
		"                      MiB; 64M..3G in whole MiB, default %lluM)\n"
		"  --step-budget N     steps after which a run is a livelock (default %llu)\n"
		"  --stuck-ms MS       wall ms without an exit after which a run is stuck\n"
		"                      (default %llu)\n"
		"  --wall-ms MS        wall budget of one execution; a run over it is a timeout,\n"
		"                      not a crash (default %llu)\n"
		"  --slice-blocks N    counter mode: preempt every N schedule events on average\n"
		"                      (N/2 to 3N/2, drawn from the seed) when the schedule\n"
		"                      says nothing (default %llu, 0 = never)\n"
		"  --block-ns NS       counter and pct modes: virtual time of one schedule event\n"
		"                      (default %llu)\n"
		"  -- CMD [ARGS...]    the command to run in the guest\n"
		"\n"
		"Fuzzing:\n"
		"  --artifacts DIR     where crash artifacts go (default: rewind-crashes)\n"
		"  --progress FILE     rewrite FILE with the executions and failures so far,\n"
		"                      every 2 s at most (JSON; rewind explore's live view)\n"
		"  --trace FILE        (one input) write its event trace (RWTRACE1, vmm/trace.h)\n"
		"  --json              (one input, --replay, --explain) print the outcome or the\n"
		"                      verdict as one JSON object on stdout (docs/harness.md);\n"
		"                      the guest's output and the text go to stderr\n"
		"  --event-log FILE    (one input, counter and pct modes) write every schedule\n"
		"                      event of the same run as JSON lines (index, tid, what,\n"
		"                      pc, addr, value before the access); at most 1M events\n"
		"  --random N          the baseline: run up to N random inputs of the format (no\n"
		"                      coverage feedback) until the first failure; print the "
		"count\n"
		"  --random-seed S     their seed (default 0); --counter: counter-mode inputs;\n"
		"                      --pct: PCT samples (pct mode); --walk: walks over the\n"
		"                      threads (pct mode, docs/input-format.md); --mix: walks\n"
		"                      1 in 4, PCT samples the rest (the search's start); "
		"--seconds S:\n"
		"                      stop after S seconds; --keep-going: on past failures\n"
		"                      (all N run: a rate without afl-fuzz, bench/exec)\n"
		"  --map-size N        coverage map bytes, a power of two (default %u)\n"
		"  -v, --verbose       show the guest kernel's console, and where in the source\n"
		"                      each error comes from (REWIND_DEBUG=1: that alone)\n"
		"\n"
		"Replay and explain (an artifact is untrusted: the host paths it names are not\n"
		"read unless you say so; the kernel and initramfs are this checkout's):\n"
		"  --trust             read the kernel, initramfs and added files the artifact\n"
		"                      names (for an artifact you wrote yourself)\n"
		"  --expect-fixed      exit 0 only if the failure is gone (check a fix)\n"
		"  --raw               the file is afl-fuzz's raw input, whatever its bytes (else\n"
		"                      it must be an artifact, '{', or an input, \"RWSI\")\n"
		"  job options         --add, --kernel, --mem, -- CMD ... given with --replay\n"
		"                      change the artifact's job; the replay says what changed\n"
		"\n"
		"Inputs: any bytes are an input (what is not in the documented format is\n"
		"decoded field by field, docs/input-format.md); modes: steps for any static\n"
		"binary, pct (priority schedules) and counter for a test built with\n"
		"guest/rewind-cc or guest/rewind-c++ (docs/harness.md, \"Modes\").\n"
		"\n"
		"Exit status (docs/exit-status.md): one-shot run: 0 the job passes, 1 it fails;\n"
		"--random: 0 no failure found, 1 a failure found; --replay: 0 it runs as\n"
		"recorded and passes, 1 the failure reproduces as recorded (--expect-fixed: 0\n"
		"the changed job passes, 1 it still fails), 3 it differs from the artifact;\n"
		"--explain: 1 it fails and is explained, 0 it does not fail, 3 it differs;\n"
		"--bundle: 0 written; 2 bad usage or setup, nothing ran (an unreadable,\n"
		"invalid or untrusted file, no kernel, a job command the guest cannot run, no\n"
		"or a slow /dev/kvm: run through tests/box/run, or set REWIND_ALLOW_SLOW_KVM=1);\n"
		"4 the host could not finish (a KVM error, the replay's wall guard, output\n"
		"that could not be written).\n",
		JOB_DEFAULT_COMMAND, JOB_DEFAULT_MEM >> 20, JOB_DEFAULT_STEP_BUDGET,
		JOB_DEFAULT_STUCK_MS, JOB_DEFAULT_WALL_MS, JOB_DEFAULT_SLICE_BLOCKS,
		JOB_DEFAULT_BLOCK_NS, COVERAGE_DEFAULT_SIZE);
}

/* What every replaying subcommand shares: an artifact is untrusted. */
static const char ARTIFACT_OPTIONS[] =
	"  --trust             read the kernel, initramfs and added files the artifact\n"
	"                      names (an artifact you wrote yourself; without it, the\n"
	"                      kernel and initramfs are this checkout's and an added\n"
	"                      file must come from --add FILE:GUEST or a bundle)\n"
	"  job options         --add, --kernel, --mem, -- CMD ... change the artifact's\n"
	"                      job (rewind-harness --help lists them); the wall budget\n"
	"                      (--wall-ms) is no part of a replay: the guest decides\n"
	"  -v, --verbose       show the guest kernel's console\n";

static const char REPLAY_USAGE[] =
	"usage: rewind replay FILE... [--repeat N] [--trust] [JOB OPTIONS] [-- CMD]\n"
	"       rewind replay ARTIFACT --add FIX:/bin/x --expect-fixed\n"
	"\n"
	"Replays crash artifacts (OUT/artifacts/*.json of rewind fuzz), bundles or\n"
	"raw inputs, bit for bit, and checks each is the same run: kernel, image,\n"
	"job, outcome, step and trace hash as recorded.\n"
	"\n"
	"  --repeat N          run each N times, and check every run is the same\n"
	"  --expect-fixed      with a changed job: exit 0 only if the failure is gone\n"
	"  --json              the verdict as one JSON object on stdout (one line per\n"
	"                      file); the guest's output goes to stderr\n"
	"  --raw               FILE is afl-fuzz's raw input (default/crashes/id*),\n"
	"                      whatever its bytes; without it FILE must be an artifact\n"
	"                      (JSON) or an input that starts with \"RWSI\"\n";

static const char EXPLAIN_USAGE[] =
	"usage: rewind explain ARTIFACT [--out JSON] [--trust] [JOB OPTIONS]\n"
	"\n"
	"Why an artifact fails: shrinks its schedule to the injections it needs,\n"
	"names where each lands (thread, function, file:line), the window of\n"
	"positions where it still fails, and for an instrumented test the two\n"
	"racing accesses.\n"
	"\n"
	"  --out FILE          also write the explanation as JSON (-o FILE: the same)\n"
	"  --json              the verdict and the explanation as one JSON object on\n"
	"                      stdout; the text goes to stderr\n"
	"  --raw               FILE is afl-fuzz's raw input, whatever its bytes\n";

static const char BUNDLE_USAGE[] =
	"usage: rewind bundle ARTIFACT --out DIR [--trust] [JOB OPTIONS]\n"
	"\n"
	"Replays the artifact and, if it fails here, writes DIR: the artifact with\n"
	"the kernel, the image and every file its job adds, which replays on any\n"
	"machine (rewind replay DIR).\n"
	"\n"
	"  --out DIR           the bundle directory to create (-o DIR: the same)\n";

void cli_word_usage(const char *word, FILE *to)
{
	const char *text = !strcmp(word, "replay")    ? REPLAY_USAGE
			   : !strcmp(word, "explain") ? EXPLAIN_USAGE
						      : BUNDLE_USAGE;

	fputs(text, to);
	fputs(ARTIFACT_OPTIONS, to);
	fputs(!strcmp(word, "replay")
		      ? "\nExit status: 0 it runs as recorded and passes, 1 the failure "
			"reproduces\n"
			"as recorded (--expect-fixed: 0 the changed job passes, 1 it still\n"
			"fails), 3 it differs from what the artifact recorded (said on stderr),\n"
	      : !strcmp(word, "explain")
		      ? "\nExit status: 1 it fails and is explained, 0 it does not fail (nothing\n"
			"to explain), 3 it differs from what the artifact recorded,\n"
		      : "\nExit status: 0 the bundle is written, 3 the artifact does not fail "
			"here,\n",
	      to);
	fputs("2 bad usage or setup, nothing ran (a file that is no artifact, untrusted\n"
	      "paths, no kernel, no KVM: run through tests/box/run), 4 the host could not\n"
	      "finish (a KVM error, the wall guard, output that could not be written).\n",
	      to);
}
