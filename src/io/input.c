/*
 * A regular file is mapped, so parsing a 500 MB checkpoint touches only the
 * pages of its header and of the tensor wanted.  Everything else is read
 * whole, with the size checked as the bytes arrive.
 *
 * The kind of file is looked at with stat() before opening, so a device is
 * never opened (opening a tape or a modem can have effects), and again with
 * fstat() on the opened descriptor, which is what is then read.
 *
 * A FIFO is opened O_NONBLOCK, which succeeds at once with or without a
 * writer.  A non-blocking read then tells the cases apart: data (a writer
 * wrote), EAGAIN (a writer is there, not yet written) or 0 (no writer now).
 * Only the last waits, in poll(), for PE_INPUT_FIFO_WAIT_MS.  On Linux poll
 * on a FIFO that never had a writer reports nothing and times out, and
 * POLLHUP once a writer has come and gone; either way a read tells.
 *
 * A stream is read in chunks; after each, the rule (if any) looks at what
 * has come and may bound the rest, so /dev/zero behind a pipe stops at the
 * first chunk instead of filling memory.
 *
 * A mapped file that another process truncates raises SIGBUS on the pages
 * past its new end.  Unwinding out of a parser (siglongjmp) would leak
 * what it allocated and would put a jump into every pure parser's
 * contract; instead the handler maps zero pages over the lost part (mmap
 * is a plain system call on Linux, though POSIX does not list it as
 * async-signal-safe), the faulting read is repeated and finds zeros, the
 * parse ends as it would on any bad bytes, and the caller asks
 * pe_input_intact().  A SIGBUS sent by kill(), or a fault anywhere else,
 * goes to the action that was in place before (re-raised, or the fault
 * repeated).
 */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS */
#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIRST_CHUNK ((size_t)64 << 10)
#define POLL_SLICE_MS 100

static const unsigned char empty_input[1];

/* why a file of this mode is not read, or NULL if it is */
static const char *refused_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "is a device, not a file";
	if (S_ISSOCK(m))
		return "is a socket, not a file";
	if (!S_ISREG(m) && !S_ISFIFO(m))
		return "is not a regular file or a FIFO";
	return NULL;
}

static int too_large(struct pe_input *in, size_t max_bytes, int pseudo, struct pe_error *err)
{
	if (pseudo)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: a file that says it is empty (as /proc and /sys files do) but holds more than %zu MiB: not a table; posenc reads at most that from one",
			       in->name, max_bytes >> 20);
	return pe_fail(err, PE_ERR_DATA, "%s: larger than the limit of %zu bytes", in->name,
		       max_bytes);
}

/* Is there more to read from fd?  1, 0 (the end) or -1 (errno).  The
 * probe is a whole block: /proc/self/pagemap refuses reads that are not
 * multiples of 8 bytes. */
static int more_bytes(int fd)
{
	unsigned char probe[4096];
	ssize_t r;

	do
		r = read(fd, probe, sizeof probe);
	while (r < 0 && errno == EINTR);
	return r > 0 ? 1 : r == 0 ? 0 : -1;
}

/*
 * Read fd to its end into in->buf.  got bytes are already there (a FIFO's
 * first read); cap is the buffer's size.  At max_bytes a probe tells a
 * source of exactly max_bytes from a larger one, which is refused without
 * reading it all.  rule, if any, sees the bytes after each read and may
 * stop the reading sooner (x.most), as an error when the source holds more
 * (x.over).  pseudo: a size-0 file, for the message.
 */
static int read_all(struct pe_input *in, int fd, size_t got, size_t cap, size_t max_bytes,
		    const struct pe_input_rule *rule, int pseudo, struct pe_error *err)
{
	struct pe_input_extent x = { SIZE_MAX, NULL };
	size_t stop, want;
	ssize_t r;
	int more;

	for (;;) {
		if (rule && got > 0) {
			rule->fn(in->buf, got, rule->ctx, &x);
			if (got > x.most && x.over)
				return pe_fail(err, PE_ERR_DATA, "%s: more than %zu bytes, %s",
					       in->name, x.most, x.over);
		}
		if (got > max_bytes)
			return too_large(in, max_bytes, pseudo, err);
		stop = x.most < max_bytes ? x.most : max_bytes;
		if (got >= stop) {
			if (got >= x.most && !x.over) {
				got = x.most;	/* the rule's bound: the parser judges */
				break;
			}
			more = more_bytes(fd);
			if (more < 0)
				return pe_fail(err, PE_ERR_IO, "%s: cannot read: %s", in->name,
					       strerror(errno));
			if (more && got == x.most)
				return pe_fail(err, PE_ERR_DATA, "%s: more than %zu bytes, %s",
					       in->name, x.most, x.over);
			if (more)
				return too_large(in, max_bytes, pseudo, err);
			break;
		}
		if (got == cap) {
			size_t ncap = cap ? (cap <= stop / 2 ? cap * 2 : stop) : FIRST_CHUNK;
			unsigned char *nb;

			if (ncap > stop)
				ncap = stop;
			nb = realloc(in->buf, ncap);
			if (!nb)
				return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory after %zu bytes",
					       in->name, got);
			in->buf = nb;
			cap = ncap;
		}
		want = (cap < stop ? cap : stop) - got;
		r = read(fd, in->buf + got, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return pe_fail(err, PE_ERR_IO, "%s: cannot read: %s", in->name,
				       strerror(errno));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	in->data = got ? in->buf : empty_input;
	in->len = got;
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * fd is a FIFO opened O_NONBLOCK.  While nothing has arrived, a read every
 * POLL_SLICE_MS (or as soon as poll reports) tells data, a writer that has
 * not written yet (EAGAIN) and no writer (0) apart; a writer that opens
 * late and writes later still is found by that read, not missed.
 */
static int read_fifo(struct pe_input *in, int fd, size_t max_bytes,
		     const struct pe_input_rule *rule, struct pe_error *err)
{
	long long deadline = now_ms() + PE_INPUT_FIFO_WAIT_MS, left;
	size_t cap = max_bytes < FIRST_CHUNK ? max_bytes + 1 : FIRST_CHUNK;
	struct pollfd p = { fd, POLLIN, 0 };
	ssize_t r;
	int flags;

	in->buf = malloc(cap);
	if (!in->buf)
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", in->name);
	for (;;) {
		r = read(fd, in->buf, cap);
		if (r > 0 || (r < 0 && errno == EAGAIN))
			break;
		if (r < 0 && errno != EINTR)
			return pe_fail(err, PE_ERR_IO, "%s: cannot read: %s", in->name,
				       strerror(errno));
		if (r == 0 && (p.revents & POLLHUP)) {
			/* a writer came and went without writing: empty input */
			in->data = empty_input;
			in->len = 0;
			return 0;
		}
		left = deadline - now_ms();
		if (left <= 0)
			return pe_fail(err, PE_ERR_IO, "%s: a FIFO with no writer", in->name);
		p.revents = 0;
		if (poll(&p, 1, (int)(left < POLL_SLICE_MS ? left : POLL_SLICE_MS)) < 0 &&
		    errno != EINTR)
			return pe_fail(err, PE_ERR_IO, "%s: cannot wait for a writer: %s",
				       in->name, strerror(errno));
	}
	/* a writer is there: read to its end, waiting for it as cat does */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return pe_fail(err, PE_ERR_IO, "%s: cannot read: %s", in->name, strerror(errno));
	if (r > 0 && (size_t)r > max_bytes)
		return too_large(in, max_bytes, 0, err);
	return read_all(in, fd, r > 0 ? (size_t)r : 0, cap, max_bytes, rule, 0, err);
}

/* The mappings watched for SIGBUS: whole pages [lo, hi), lo 0 when the
 * slot is free.  Only the thread that opens inputs changes them. */
static struct {
	volatile uintptr_t lo, hi;
	uintptr_t page;
	volatile sig_atomic_t changed;
} watches[PE_INPUT_WATCH_MAX];
static int nwatch;
static struct sigaction before;	/* SIGBUS's action before the first watch */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, from;
	int i;

	(void)uc;
	if (si->si_code == BUS_ADRERR)
		for (i = 0; i < PE_INPUT_WATCH_MAX; i++) {
			if (!watches[i].lo || a < watches[i].lo || a >= watches[i].hi)
				continue;
			from = a & ~(watches[i].page - 1);
			if (mmap((void *)from, watches[i].hi - from, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
				break;
			watches[i].changed = 1;
			return;
		}
	/* not a page of a watched input: the previous action's business (a
	 * fault repeats when this returns; a signal sent is sent again) */
	sigaction(SIGBUS, &before, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void watch(struct pe_input *in)
{
	struct sigaction sa;
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < PE_INPUT_WATCH_MAX && watches[i].lo; i++)
		;
	if (i == PE_INPUT_WATCH_MAX || page <= 0)
		return;		/* unwatched: a truncation is a SIGBUS, as before */
	if (nwatch == 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &before) != 0)
			return;
	}
	watches[i].page = (uintptr_t)page;
	watches[i].changed = 0;
	watches[i].hi = ((uintptr_t)in->map + in->map_len + (uintptr_t)page - 1) &
			~((uintptr_t)page - 1);
	watches[i].lo = (uintptr_t)in->map;
	nwatch++;
	in->watch = i + 1;
}

static void unwatch(struct pe_input *in)
{
	if (!in->watch)
		return;
	watches[in->watch - 1].lo = 0;
	in->watch = 0;
	if (--nwatch == 0)
		sigaction(SIGBUS, &before, NULL);
}

int pe_input_intact(const struct pe_input *in, struct pe_error *err)
{
	if (in->watch && watches[in->watch - 1].changed)
		return pe_fail(err, PE_ERR_IO, "%s: changed while being read", in->name);
	return 0;
}

/* The regular files read in this process, so an output never replaces
 * or writes into one of its own inputs (io/output.c asks): every one, the
 * list grows as needed. */
static struct seen_file {
	dev_t dev;
	ino_t ino;
} *seen;
static size_t nseen, seen_cap;

int pe_input_seen(dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (seen[i].dev == dev && seen[i].ino == ino)
			return 1;
	return 0;
}

void pe_input_forget(void)
{
	free(seen);
	seen = NULL;
	nseen = seen_cap = 0;
}

/* 0, or -1 when out of memory: the file is then not read, since an
 * output could not tell it from another. */
static int remember(const struct stat *st)
{
	struct seen_file *n;

	if (!S_ISREG(st->st_mode) || pe_input_seen(st->st_dev, st->st_ino))
		return 0;
	if (nseen == seen_cap) {
		n = realloc(seen, (seen_cap ? 2 * seen_cap : 16) * sizeof *seen);
		if (!n)
			return -1;
		seen = n;
		seen_cap = seen_cap ? 2 * seen_cap : 16;
	}
	seen[nseen].dev = st->st_dev;
	seen[nseen].ino = st->st_ino;
	nseen++;
	return 0;
}

static int open_path(struct pe_input *in, const char *path, size_t max_bytes,
		     const struct pe_input_rule *rule, struct pe_error *err)
{
	struct stat st;
	const char *why;
	void *map;
	int fd, rc = -1;

	if (stat(path, &st) != 0)
		return pe_fail(err, PE_ERR_IO, "%s: cannot open: %s", in->name, strerror(errno));
	why = refused_kind(st.st_mode);
	if (why)
		return pe_fail(err, PE_ERR_IO, "%s: %s", in->name, why);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return pe_fail(err, PE_ERR_IO, "%s: cannot open: %s", in->name, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = pe_fail(err, PE_ERR_IO, "%s: cannot open: %s", in->name, strerror(errno));
		goto out;
	}
	why = refused_kind(st.st_mode);
	if (why) {
		rc = pe_fail(err, PE_ERR_IO, "%s: %s", in->name, why);
		goto out;
	}
	if (remember(&st) != 0) {
		rc = pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", in->name);
		goto out;
	}
	if (S_ISFIFO(st.st_mode)) {
		rc = read_fifo(in, fd, max_bytes, rule, err);
		goto out;
	}
	if (st.st_size < 0 || (uintmax_t)st.st_size > max_bytes) {
		rc = pe_fail(err, PE_ERR_DATA, "%s: %jd bytes, larger than the limit of %zu",
			     in->name, (intmax_t)st.st_size, max_bytes);
		goto out;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			in->map = map;
			in->map_len = (size_t)st.st_size;
			in->data = map;
			in->len = (size_t)st.st_size;
			watch(in);
			rc = 0;
			goto out;
		}
	}
	/* size 0 (/proc files say so) or a file that cannot be mapped: read it
	 * (O_NONBLOCK, set for FIFOs, changes nothing for a regular file) */
	if (st.st_size == 0)
		rc = read_all(in, fd, 0, 0,
			      max_bytes < PE_INPUT_PSEUDO_MAX ? max_bytes : PE_INPUT_PSEUDO_MAX, rule,
			      max_bytes > PE_INPUT_PSEUDO_MAX, err);
	else
		rc = read_all(in, fd, 0, 0, max_bytes, rule, 0, err);
out:
	close(fd);
	return rc;
}

int pe_input_open(struct pe_input *in, const char *path, size_t max_bytes,
		  struct pe_error *err)
{
	return pe_input_open_rule(in, path, max_bytes, NULL, err);
}

int pe_input_open_rule(struct pe_input *in, const char *path, size_t max_bytes,
		       const struct pe_input_rule *rule, struct pe_error *err)
{
	memset(in, 0, sizeof *in);
	in->data = empty_input;
	if (strcmp(path, "-") == 0) {
		in->name = "stdin";
		return read_all(in, STDIN_FILENO, 0, 0, max_bytes, rule, 0, err);
	}
	in->path = malloc(strlen(path) + 1);
	if (!in->path) {
		in->name = path;
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", path);
	}
	strcpy(in->path, path);
	in->name = in->path;
	return open_path(in, path, max_bytes, rule, err);
}

void pe_input_close(struct pe_input *in)
{
	unwatch(in);
	if (in->map)
		munmap(in->map, in->map_len);
	free(in->buf);
	free(in->path);
	memset(in, 0, sizeof *in);
	in->data = empty_input;
	in->name = "";
}
