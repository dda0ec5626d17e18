/* SPDX-License-Identifier: MIT */
/* afl-fuzz's output folder, as rewind explore and rewind fuzz read it while it runs. */
#ifndef REWIND_AFL_QUEUE_H
#define REWIND_AFL_QUEUE_H

/* The entries of INSTANCE/queue (the inputs afl kept for new coverage); 0 if none yet. */
unsigned int afl_queue_entries(const char *instance_dir);

#endif
