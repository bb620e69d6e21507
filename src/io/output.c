#ifdef __linux__
#define _GNU_SOURCE	/* fallocate, FALLOC_FL_KEEP_SIZE, O_PATH */
#endif
#include "io/output.h"

#include "io/input.h"
#include "io/le.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#define PROC_SUPER_MAGIC 0x9fa0	/* linux/magic.h */
#endif

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#ifdef O_PATH
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)	/* needs search permission only */
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif
#define FIFO_SLICE_MS 10

int pe_write_error(int errnum, struct pe_error *err)
{
	if (errnum == EPIPE)
		return pe_fail(err, PE_ERR_PIPE, "broken pipe");
	return pe_fail(err, PE_ERR_IO, "write failed: %s",
		       errnum ? strerror(errnum) : "unknown error");
}

int pe_write_str(FILE *fp, const char *s, struct pe_error *err)
{
	return pe_write(fp, s, strlen(s), err);
}

void pe_write_expect(FILE *fp, uint64_t bytes)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
	struct stat st;
	int fd = fileno(fp);
	off_t at;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || bytes > (uint64_t)INT64_MAX / 2)
		return;
	at = st.st_size;
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, at, (off_t)bytes);
#else
	(void)fp;
	(void)bytes;
#endif
}

int pe_write(FILE *fp, const void *p, size_t n, struct pe_error *err)
{
	if (n == 0)
		return 0;
	errno = 0;
	if (fwrite(p, 1, n, fp) != n)
		return pe_write_error(errno, err);
	return 0;
}

/* On a little-endian host the values are already the file's bytes: the
 * whole block goes to fwrite at once, which hands anything larger than the
 * stream's buffer straight to write(2) (one system call per block instead
 * of one per 4 KiB).  Elsewhere they are converted in 16 KiB chunks. */
int pe_write_le(FILE *fp, const void *data, size_t n, size_t size, struct pe_error *err)
{
	unsigned char chunk[1 << 14];
	const unsigned char *p = data;
	size_t k, per = sizeof chunk / size;
	const uint32_t probe = 1;

	if (*(const unsigned char *)&probe == 1)
		return pe_write(fp, data, size * n, err);
	while (n) {
		k = n < per ? n : per;
		pe_put_le_block(chunk, p, k, size);
		if (pe_write(fp, chunk, size * k, err) != 0)
			return -1;
		p += size * k;
		n -= k;
	}
	return 0;
}

int pe_write_le32(FILE *fp, const void *data, size_t n, struct pe_error *err)
{
	return pe_write_le(fp, data, n, 4, err);
}

/* Temporary files being written, for pe_output_signal_cleanup: fixed
 * slots, because a signal handler may read them at any moment (a slot is
 * marked used only after its name and directory are in place, and unused
 * before they change).  Only the thread that opens outputs changes them. */
static struct {
	int dirfd;
	char name[PE_OUTPUT_TEMP_LEN];
} temp[PE_OUTPUT_MAX];
static volatile sig_atomic_t temp_used[PE_OUTPUT_MAX];

static int free_slot(void)
{
	int i;

	for (i = 0; i < PE_OUTPUT_MAX; i++)
		if (!temp_used[i])
			return i;
	return -1;
}

static void register_temp(int slot, int dirfd, const char *name)
{
	temp[slot].dirfd = dirfd;
	memcpy(temp[slot].name, name, PE_OUTPUT_TEMP_LEN);
	atomic_signal_fence(memory_order_seq_cst);
	temp_used[slot] = 1;
}

static void unregister_temp(int slot)
{
	temp_used[slot] = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

void pe_output_signal_cleanup(void)
{
	int i;

	for (i = 0; i < PE_OUTPUT_MAX; i++)
		if (temp_used[i])
			(void)unlinkat(temp[i].dirfd, temp[i].name, 0);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* The directory part of path ("." when it has none, "/" for "/x"). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	char *d;

	if (!slash)
		return dup_str(".");
	d = malloc(n ? n + 1 : 2);
	if (!d)
		return NULL;
	if (n)
		memcpy(d, path, n);
	else
		d[n++] = '/';
	d[n] = '\0';
	return d;
}

/* Is the symbolic link p one of /proc's (/proc/self/fd/N, /dev/fd/N
 * through /dev/fd's own link)?  Such a "magic" link names an open object,
 * and its text is no path to follow: "pipe:[123]", a deleted file, a path
 * of another mount namespace. */
static int proc_link(const char *p)
{
#ifdef __linux__
	struct statfs sf;
	char *dir = dir_of(p);
	int r = dir && statfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;

	free(dir);
	return r;
#else
	(void)p;
	return 0;
#endif
}

/* The file a path finally names: symbolic links followed (also a dangling
 * one, whose target is then created), so the link stays a link; a /proc
 * link ends the walk (*magic set).  NULL with errno set on failure (ELOOP
 * after 40 links). */
static char *resolve_links(const char *path, int *magic)
{
	char *p = dup_str(path), *q, *link;
	const char *slash;
	struct stat st;
	ssize_t n;
	size_t dirlen;
	int hops;

	*magic = 0;
	for (hops = 0; p && hops < 40; hops++) {
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		if (proc_link(p)) {
			*magic = 1;
			return p;
		}
		link = malloc(PATH_MAX);
		n = link ? readlink(p, link, PATH_MAX - 1) : -1;
		if (n < 0 || (size_t)n >= PATH_MAX - 1) {
			int e = !link ? ENOMEM : n < 0 ? errno : ENAMETOOLONG;

			free(link);
			free(p);
			errno = e;
			return NULL;
		}
		link[n] = '\0';
		slash = strrchr(p, '/');
		dirlen = link[0] != '/' && slash ? (size_t)(slash - p) + 1 : 0;
		q = malloc(dirlen + (size_t)n + 1);
		if (q) {
			memcpy(q, p, dirlen);
			memcpy(q + dirlen, link, (size_t)n + 1);
		}
		free(link);
		free(p);
		p = q;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_input(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pe_input_seen(st.st_dev, st.st_ino);
}

static int refuse_terminal(struct pe_error *err)
{
	return pe_fail(err, PE_ERR_USAGE,
		       "refusing to write binary output to a terminal (use -o FILE or --force)");
}

/* fd, opened for writing in place, as o->fp. */
static int use_fd(struct pe_output *o, int fd, int binary, int force, struct pe_error *err)
{
	int e;

	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		e = errno;
		close(fd);
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", o->path, strerror(e));
	}
	if (is_input(fd))
		return pe_fail(err, PE_ERR_USAGE,
			       "-o '%s' is also an input of this command: refusing to write into it",
			       o->path);
	if (binary && !force && isatty(fd))
		return refuse_terminal(err);
	return 0;
}

/*
 * A /proc link that names one of this process's descriptors (/proc/self/
 * fd/N, /dev/fd/N, /dev/stdout): a duplicate of N, which writes where N
 * stands (a pipe, a socket, the end of what a shell's >> redirection
 * holds), as "-" writes stdout; opening the link instead would truncate a
 * file and fail on a socket.  -1 when path is not one.
 */
static int own_descriptor(const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat a, b;
	long n = 0;

	base = base ? base + 1 : path;
	if (!*base || strlen(base) > 9)
		return -1;
	for (; *base; base++) {
		if (*base < '0' || *base > '9')
			return -1;
		n = n * 10 + (*base - '0');
	}
	if (stat(path, &a) != 0 || fstat((int)n, &b) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return -1;
	return fcntl((int)n, F_DUPFD_CLOEXEC, 3);
}

/*
 * Open an existing device, FIFO or socket, or what a /proc link names,
 * without creating, truncating or replacing it.  O_NONBLOCK so that a
 * FIFO without a reader fails (ENXIO) instead of waiting, which is retried
 * for PE_INPUT_FIFO_WAIT_MS, and a device does not wait for a carrier;
 * then writes block as usual.
 */
static int open_in_place(struct pe_output *o, const char *target, int magic, int binary,
			 int force, struct pe_error *err)
{
	long long deadline = now_ms() + PE_INPUT_FIFO_WAIT_MS;
	struct timespec slice = { 0, FIFO_SLICE_MS * 1000000L };
	struct stat st;
	int fd, flags, e;

	if (magic && (fd = own_descriptor(target)) >= 0)
		return use_fd(o, fd, binary, force, err);
	for (;;) {
		fd = open(target, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO || stat(target, &st) != 0 || !S_ISFIFO(st.st_mode))
			break;
		if (now_ms() >= deadline)
			return pe_fail(err, PE_ERR_IO, "cannot write '%s': a FIFO with no reader",
				       o->path);
		(void)nanosleep(&slice, NULL);
	}
	if (fd < 0) {
		e = errno;
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", o->path, strerror(e));
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) ||
	    (S_ISREG(st.st_mode) && !magic)) {
		/* it changed since it was looked at, into something not written
		 * in place */
		close(fd);
		return pe_fail(err, PE_ERR_IO, "cannot write '%s': it changed while being opened",
			       o->path);
	}
	/* a file reached through another process's /proc link: after what
	 * it holds, never over it */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, (flags & ~O_NONBLOCK) |
					      (S_ISREG(st.st_mode) ? O_APPEND : 0)) < 0) {
		e = errno;
		close(fd);
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", o->path, strerror(e));
	}
	return use_fd(o, fd, binary, force, err);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

/*
 * Create o->tmp, a new ".posenc-XXXXXX" in o->dirfd, as mkstemp does
 * (O_EXCL, another name on a clash), and register it for the signal
 * handler with every signal held off in between, so that no signal can end
 * the process with the file created and not registered.  A new file gets
 * mode (the kernel applies the umask or the directory's default ACL).
 * Returns the descriptor, or -1 with errno set.
 */
static int create_temp(struct pe_output *o, mode_t mode)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t counter;
	sigset_t all, old;
	struct timespec ts;
	uint64_t x;
	int fd = -1, tries, k, e = EEXIST;

	o->slot = free_slot();
	if (o->slot < 0) {
		errno = EMFILE;
		return -1;
	}
	sigfillset(&all);
	for (tries = 0; tries < 100 && e == EEXIST; tries++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		x = mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			  ((uint64_t)getpid() << 40) ^ mix64(++counter));
		memcpy(o->tmp, ".posenc-", 8);
		for (k = 8; k < 14; k++, x /= sizeof chars - 1)
			o->tmp[k] = chars[x % (sizeof chars - 1)];
		o->tmp[14] = '\0';
		pthread_sigmask(SIG_BLOCK, &all, &old);
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC,
			    mode);
		e = errno;
		if (fd >= 0)
			register_temp(o->slot, o->dirfd, o->tmp);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (fd < 0) {
		o->tmp[0] = '\0';
		errno = e;
	}
	return fd;
}

/* A regular file (existing or not) named target: a temporary file in its
 * directory, renamed over it by commit. */
static int open_temp(struct pe_output *o, const char *target, struct pe_error *err)
{
	const char *slash = strrchr(target, '/');
	char *dir;
	struct stat st;
	int fd, e, existing = 0;

	dir = dir_of(target);
	o->name = dup_str(slash ? slash + 1 : target);
	if (!dir || !o->name) {
		free(dir);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	o->dirfd = open(dir, DIR_FLAGS);
	e = errno;
	free(dir);
	if (o->dirfd < 0)
		return pe_fail(err, PE_ERR_IO, "cannot create '%s': %s", o->path, strerror(e));
	o->has_dir = 1;
	if (!*o->name) {	/* "name/", and name is no directory */
		e = stat(target, &st) == 0 ? EISDIR : errno;
		return pe_fail(err, PE_ERR_IO, "cannot create '%s': %s", o->path, strerror(e));
	}
	if (fstatat(o->dirfd, o->name, &st, 0) == 0) {
		if (!S_ISREG(st.st_mode))
			return pe_fail(err, PE_ERR_IO, "cannot write '%s': it changed while being opened",
				       o->path);
		if (pe_input_seen(st.st_dev, st.st_ino))
			return pe_fail(err, PE_ERR_USAGE,
				       "-o '%s' is also an input of this command: refusing to replace it",
				       o->path);
		existing = 1;
	} else if (errno != ENOENT) {
		e = errno;
		return pe_fail(err, PE_ERR_IO, "cannot create '%s': %s", o->path, strerror(e));
	}
	fd = create_temp(o, existing ? 0600 : 0666);
	if (fd < 0) {
		e = errno;
		return pe_fail(err, PE_ERR_IO, "cannot create '%s': %s", o->path,
			       e == EMFILE && o->slot < 0 ? "too many outputs open at once"
							  : strerror(e));
	}
	if (existing)	/* it keeps its permissions */
		(void)fchmod(fd, st.st_mode & 07777);
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		e = errno;
		close(fd);
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", o->path, strerror(e));
	}
	return 0;
}

int pe_output_open(struct pe_output *o, const char *path, int binary, int force,
		   struct pe_error *err)
{
	struct stat st;
	char *target;
	int magic, found, rc, e;

	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		if (is_input(STDOUT_FILENO))
			return pe_fail(err, PE_ERR_USAGE,
				       "standard output is also an input of this command: refusing to write into it");
		if (binary && !force && isatty(STDOUT_FILENO))
			return refuse_terminal(err);
		o->fp = stdout;
		o->to_stdout = 1;
		return 0;
	}
	if (!*path)
		return pe_fail(err, PE_ERR_USAGE, "empty output path");
	o->path = dup_str(path);
	if (!o->path)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	target = resolve_links(path, &magic);
	if (!target) {
		e = errno;
		pe_fail(err, PE_ERR_IO, "cannot write '%s': %s", path, strerror(e));
		pe_output_abort(o);
		return -1;
	}
	found = stat(target, &st) == 0;
	if (found && (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)))
		rc = pe_fail(err, PE_ERR_IO, "cannot write '%s': is a %s", path,
			     S_ISDIR(st.st_mode) ? "directory" : "block device");
	else if (magic || (found && !S_ISREG(st.st_mode)))
		rc = open_in_place(o, target, magic, binary, force, err);
	else
		rc = open_temp(o, target, err);
	free(target);
	if (rc != 0)
		pe_output_abort(o);
	return rc;
}

int pe_output_commit(struct pe_output *o, struct pe_error *err)
{
	int rc = 0, e;

	errno = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp)) {
		pe_write_error(errno, err);
		rc = -1;
	}
	if (o->to_stdout) {
		/* stdout is closed by the command layer at exit; flushed here */
		o->fp = NULL;
		o->to_stdout = 0;
		return rc;
	}
	errno = 0;
	e = fclose(o->fp);
	o->fp = NULL;
	if (e != 0 && rc == 0) {
		pe_write_error(errno, err);
		rc = -1;
	}
	if (rc == 0 && o->tmp[0]) {
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0) {
			pe_fail(err, PE_ERR_IO, "cannot rename the finished file into place: %s",
				strerror(errno));
			rc = -1;
		} else {
			unregister_temp(o->slot);
			o->tmp[0] = '\0';
		}
	}
	if (rc != 0 && err && err->code == PE_ERR_IO && o->path) {
		char msg[sizeof err->msg];
		size_t n;

		memcpy(msg, err->msg, sizeof msg);
		n = (size_t)snprintf(err->msg, sizeof err->msg, "'%.200s': ", o->path);
		if (n < sizeof err->msg)
			snprintf(err->msg + n, sizeof err->msg - n, "%.300s", msg);
	}
	pe_output_abort(o);
	return rc;
}

void pe_output_abort(struct pe_output *o)
{
	if (o->fp && !o->to_stdout)
		fclose(o->fp);
	o->fp = NULL;
	o->to_stdout = 0;
	if (o->tmp[0]) {
		(void)unlinkat(o->dirfd, o->tmp, 0);
		unregister_temp(o->slot);
		o->tmp[0] = '\0';
	}
	if (o->has_dir) {
		close(o->dirfd);
		o->has_dir = 0;
	}
	free(o->path);
	free(o->name);
	o->path = NULL;
	o->name = NULL;
}
