/* SPDX-License-Identifier: MIT */
/*
 * The AFL++ 4.04c forkserver protocol (Debian bookworm's afl++), as AFL++'s
 * include/types.h and include/config.h define it at tag 4.04c. Debian
 * ships no AFL++ headers, so the few constants are defined here, shared by
 * the forkserver (harness/forkserver.c) and the test that plays afl-fuzz.
 *
 * fd 198 carries control words from afl-fuzz to the target, fd 199 status
 * words back; every word is a native u32. The target's hello is
 * FS_OPT_ENABLED | FS_OPT_MAPSIZE | FS_OPT_SET_MAPSIZE(map size) (at most
 * 8 MiB), plus FS_OPT_SHDMEM_FUZZ to take testcases from shared memory, to
 * which afl-fuzz answers 0x81000001 on fd 198 and then ignores @@. A
 * target that cannot start says FS_OPT_ERROR | (code << 8) instead. The
 * hello must come within 10 x -t ms, or AFL_FORKSRV_INIT_TMOUT ms. The
 * newer handshake of AFL++ 4.20 (0x41464c01 ...) is not understood by
 * 4.04c; 4.20 still accepts this one.
 *
 * __AFL_SHM_ID names the System V shared memory of the coverage map (attach
 * with shmat); __AFL_SHM_FUZZ_ID the testcases' (a u32 length, then the
 * data, at most SHM_FUZZ_MAX bytes). The program must contain the string
 * __AFL_SHM_ID, and its map must never be all zero during calibration
 * ("No instrumentation detected"), nor start with 0xfee1dead (afl's error
 * mark).
 */
#ifndef REWIND_AFL_PROTOCOL_H
#define REWIND_AFL_PROTOCOL_H

#include <stdint.h>

#define FORKSRV_FD	      198	       /* control, afl -> target */
#define FORKSRV_STATUS_FD     (FORKSRV_FD + 1) /* status, target -> afl */
#define FS_OPT_ENABLED	      0x80000001u
#define FS_OPT_MAPSIZE	      0x40000000u
#define FS_OPT_SHDMEM_FUZZ    0x01000000u
#define FS_OPT_ERROR	      0xf800008fu
#define FS_ERROR_MAP_SIZE     1
#define FS_ERROR_SHMAT	      8
#define SHM_ENV		      "__AFL_SHM_ID"	  /* the coverage map's shm id */
#define SHM_FUZZ_ENV	      "__AFL_SHM_FUZZ_ID" /* the testcase memory's shm id */
#define SHM_FUZZ_MAX	      (1u << 20)	  /* testcase shared memory: u32 length, data */
#define PID_MAX_LIMIT	      4194304u		  /* Linux's largest pid */
#define FS_OPT_SET_MAPSIZE(x) (((uint32_t)(x)-1) << 1)
#define FS_OPT_GET_MAPSIZE(x) ((((x)&0x00fffffeu) >> 1) + 1)

#endif
