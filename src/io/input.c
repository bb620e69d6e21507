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
 * A mapped file that another process truncates afterwards raises SIGBUS on
 * the pages past the new end; posenc, like every program that maps its
 * input, accepts that.
 */
#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

static int too_large(struct pe_input *in, size_t max_bytes, struct pe_error *err)
{
	return pe_fail(err, PE_ERR_DATA, "%s: larger than the limit of %zu bytes", in->name,
		       max_bytes);
}

/*
 * Read fd to its end into in->buf.  got bytes are already there (a FIFO's
 * first read); cap is the buffer's size.  One byte beyond max_bytes is
 * asked for, so a source of exactly max_bytes is accepted and a larger one
 * refused without reading it all.
 */
static int read_all(struct pe_input *in, int fd, size_t got, size_t cap, size_t max_bytes,
		    struct pe_error *err)
{
	size_t limit = max_bytes < SIZE_MAX ? max_bytes + 1 : SIZE_MAX;
	ssize_t r;

	for (;;) {
		if (got == cap) {
			size_t ncap = cap ? cap : FIRST_CHUNK;
			unsigned char *nb;

			if (cap && cap <= limit / 2)
				ncap = cap * 2;
			else if (cap)
				ncap = limit;
			if (ncap > limit)
				ncap = limit;
			if (ncap == cap)
				return too_large(in, max_bytes, err);
			nb = realloc(in->buf, ncap);
			if (!nb)
				return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory after %zu bytes",
					       in->name, got);
			in->buf = nb;
			cap = ncap;
		}
		r = read(fd, in->buf + got, cap - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return pe_fail(err, PE_ERR_IO, "%s: cannot read: %s", in->name,
				       strerror(errno));
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > max_bytes)
			return too_large(in, max_bytes, err);
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
static int read_fifo(struct pe_input *in, int fd, size_t max_bytes, struct pe_error *err)
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
		return too_large(in, max_bytes, err);
	return read_all(in, fd, r > 0 ? (size_t)r : 0, cap, max_bytes, err);
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
		     struct pe_error *err)
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
		rc = read_fifo(in, fd, max_bytes, err);
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
			rc = 0;
			goto out;
		}
	}
	/* size 0 (/proc files say so) or a file that cannot be mapped: read it
	 * (O_NONBLOCK, set for FIFOs, changes nothing for a regular file) */
	rc = read_all(in, fd, 0, 0, max_bytes, err);
out:
	close(fd);
	return rc;
}

int pe_input_open(struct pe_input *in, const char *path, size_t max_bytes,
		  struct pe_error *err)
{
	memset(in, 0, sizeof *in);
	in->data = empty_input;
	if (strcmp(path, "-") == 0) {
		in->name = "stdin";
		return read_all(in, STDIN_FILENO, 0, 0, max_bytes, err);
	}
	in->path = malloc(strlen(path) + 1);
	if (!in->path) {
		in->name = path;
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", path);
	}
	strcpy(in->path, path);
	in->name = in->path;
	return open_path(in, path, max_bytes, err);
}

void pe_input_close(struct pe_input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	free(in->buf);
	free(in->path);
	memset(in, 0, sizeof *in);
	in->data = empty_input;
	in->name = "";
}
