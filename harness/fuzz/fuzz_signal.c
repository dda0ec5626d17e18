/* SPDX-License-Identifier: MIT */
/* `rewind fuzz` and the signals that stop it: its children stop with it. */
#include "harness/fuzz/fuzz.h"

#include <stdio.h>
#include <string.h>

volatile sig_atomic_t fuzz_stop_signal;

static void note_stop(int sig)
{
	fuzz_stop_signal = sig;
}

/* Interrupt, termination and hang-up end the run, and its children, cleanly. */
void fuzz_catch_stop_signals(void)
{
	struct sigaction sa = {.sa_handler = note_stop};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int fuzz_stopped_status(void)
{
	fuzz_say("stopped by signal %d (%s); afl-fuzz and the harness too\n", (int)fuzz_stop_signal,
		 strsignal(fuzz_stop_signal));
	return 128 + fuzz_stop_signal;
}
