/* SPDX-License-Identifier: MIT */
#include "harness/forkserver.h"

#include "harness/afl_protocol.h"
#include "harness/coverage.h"
#include "harness/outcome_cache.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <unistd.h>

#define FAKE_PID 0x7fff0000u /* > PID_MAX_LIMIT: no such process */

bool forkserver_wanted(void)
{
	return getenv(SHM_ENV) && fcntl(FORKSRV_STATUS_FD, F_GETFD) >= 0;
}

int forkserver_tie_to_afl(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		rw_err_errno(errno, "asking to end with afl-fuzz (prctl PR_SET_PDEATHSIG)");
		return -errno;
	}
	if (getppid() == 1) { /* afl-fuzz died before the prctl */
		rw_err("afl-fuzz, which started me, is gone");
		return -ESRCH;
	}
	return 0;
}

static int put_u32(uint32_t v)
{
	if (write(FORKSRV_STATUS_FD, &v, 4) != 4) {
		rw_err_errno(errno, "writing to afl-fuzz's status pipe");
		return -EPIPE;
	}
	return 0;
}

/* 1 on a word, 0 when afl-fuzz closed the pipe, -errno on an error. */
static int get_u32(uint32_t *v)
{
	ssize_t n;

	do
		n = read(FORKSRV_FD, v, 4);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != 4) {
		rw_err_errno(n < 0 ? errno : EPROTO, "reading afl-fuzz's control pipe");
		return -EPIPE;
	}
	return 1;
}

/* Attaches afl's shared memory named by env; *size: at least min_size, set to its size. */
static void *attach(const char *env, size_t *size, size_t min_size, const char *what)
{
	const char *text = getenv(env);
	struct shmid_ds ds;
	int id = text ? atoi(text) : -1;
	void *at;

	if (id < 0 || shmctl(id, IPC_STAT, &ds) < 0) {
		rw_err_errno(errno, "afl-fuzz's %s (%s=%s) is not there", what, env,
			     text ? text : "");
		return NULL;
	}
	if (ds.shm_segsz < min_size) {
		rw_err("afl-fuzz's %s has %zu bytes, %zu needed (run afl-fuzz with "
		       "AFL_MAP_SIZE=%zu or give --map-size)",
		       what, (size_t)ds.shm_segsz, min_size, min_size);
		errno = EMSGSIZE;
		return NULL;
	}
	*size = ds.shm_segsz;
	at = shmat(id, NULL, 0);
	if (at == (void *)-1) {
		rw_err_errno(errno, "cannot attach afl-fuzz's %s", what);
		return NULL;
	}
	return at;
}

/* The next testcase's bytes; len is one more than INPUT_MAX_SIZE for a too-long input. */
static int read_testcase(struct testcase_source *src, const uint8_t **data, size_t *len)
{
	ssize_t n;
	int fd;

	if (src->shm) {
		uint32_t size;

		memcpy(&size, src->shm, 4);
		*data = src->shm + 4;
		*len = size < SHM_FUZZ_MAX - 4 ? size : SHM_FUZZ_MAX - 4;
		return 0;
	}
	fd = src->path ? open(src->path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		rw_err_errno(errno, "cannot open the testcase %s", src->path);
		return -errno;
	}
	n = pread(fd, src->buf, sizeof(src->buf), 0);
	if (src->path)
		close(fd);
	if (n < 0) {
		rw_err_errno(errno, "cannot read the testcase %s",
			     src->path ? src->path : "(stdin)");
		return -EIO;
	}
	*data = src->buf;
	*len = (size_t)n;
	return 0;
}

static int hello(struct harness *h, bool shm_fuzz)
{
	uint32_t answer;

	if (put_u32(FS_OPT_ENABLED | FS_OPT_MAPSIZE | FS_OPT_SET_MAPSIZE(h->map_size) |
		    (shm_fuzz ? FS_OPT_SHDMEM_FUZZ : 0)) < 0)
		return -EPIPE;
	if (!shm_fuzz)
		return 0;
	if (get_u32(&answer) != 1 || answer != (FS_OPT_ENABLED | FS_OPT_SHDMEM_FUZZ)) {
		rw_err("afl-fuzz did not accept testcases in shared memory");
		return -EPROTO;
	}
	return 0;
}

/* One execution afl-fuzz asked for: answered from the cache when it ran recently. */
static int serve_one(struct harness *h, struct testcase_source *src, struct outcome_cache *cache)
{
	struct harness_exec e;
	const uint8_t *data = NULL;
	size_t len = 0;
	XXH128_hash_t key;
	uint32_t status;

	if (put_u32(FAKE_PID) < 0 || read_testcase(src, &data, &len) < 0)
		return -EIO;
	key = outcome_cache_key(data, len);
	if (outcome_cache_answer(cache, key, len, h->map, &status)) {
		h->answered++;
		return put_u32(status);
	}
	if (harness_exec(h, data, len, &e) < 0) {
		rw_err("the host failed running an execution: %s", e.res.detail);
		return -EIO;
	}
	status = (uint32_t)harness_wait_status(&e);
	if (outcome_cache_can_keep(e.cls))
		outcome_cache_keep(cache, key, len, h->map, status);
	return put_u32(status);
}

int forkserver_hello(struct forkserver *fs, struct harness *h, const char *input_path)
{
	struct testcase_source *src = &fs->src;
	size_t size;

	/* A smaller map than asked for is what afl-fuzz offers: use all of it. */
	h->map = attach(SHM_ENV, &size, COVERAGE_MIN_SIZE, "coverage map");
	while (h->map && h->map_size > size)
		h->map_size /= 2;
	if (!h->map) {
		put_u32(FS_OPT_ERROR | (errno == EMSGSIZE ? FS_ERROR_MAP_SIZE : FS_ERROR_SHMAT)
					       << 8);
		return -EINVAL;
	}
	src->path = input_path;
	if (getenv(SHM_FUZZ_ENV)) {
		src->shm = attach(SHM_FUZZ_ENV, &size, SHM_FUZZ_MAX, "testcase memory");
		if (!src->shm)
			return -EINVAL;
	}
	h->quiet = true; /* afl-fuzz owns the terminal */
	if (outcome_cache_init(&fs->cache, h->map_size) < 0)
		return -ENOMEM;
	return hello(h, src->shm != NULL);
}

int forkserver_serve(struct forkserver *fs, struct harness *h)
{
	uint32_t was_killed;
	int rc;

	/* afl zeroes the map before each control word; was_killed needs nothing:
	 * every execution has already ended by itself when afl reads its status. */
	while ((rc = get_u32(&was_killed)) == 1 && serve_one(h, &fs->src, &fs->cache) >= 0)
		;
	harness_write_progress(h);
	return rc == 1 || rc < 0 ? 1 : 0;
}

void forkserver_close(struct forkserver *fs)
{
	outcome_cache_free(&fs->cache);
}
