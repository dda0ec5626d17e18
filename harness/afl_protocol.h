/* SPDX-License-Identifier: MIT */
/*
 * The AFL++ 4.04c forkserver protocol, as its include/types.h and config.h
 * define it (Debian ships no headers; ../shared/notes/afl-forkserver-4.04c.md):
 * the fds, the hello and error words, and the environment that names the
 * shared memory. Shared by the forkserver and the test that plays afl-fuzz.
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
