#include "np/wire_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ebpf/wire_count.h"
#include "np/err.h"
/* The compiled counter, as bytes: wire_count_obj and its length. */
#include "wire_count.bpf.inc"

struct wire_bpf {
	struct bpf_object *obj;
	int counts_fd, seqs_fd;
	int ncpu;
};

/* libbpf talks to stderr unless told not to; a counter that cannot load
 * is not an error of the test (the capture counts instead), so it says
 * nothing. */
static int
wire_bpf_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void
wire_bpf_quiet_libbpf(void)
{
	libbpf_set_print(wire_bpf_silent);
}

static int
wire_bpf_map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m == NULL ? -1 : bpf_map__fd(m);
}

int
wire_bpf_attach(int fd, const struct wire_bpf_flow *f, struct wire_bpf **out,
		char *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct wire_bpf_conf conf;
	struct bpf_program *prog;
	struct wire_bpf *b;
	__u32 zero = 0;
	int rc, pfd, conf_fd;

	*out = NULL;
	pthread_once(&once, wire_bpf_quiet_libbpf);
	memset(&conf, 0, sizeof(conf));
	conf.af = f->af == AF_INET6 ? 6 : 4;
	conf.proto = (__u32)f->proto;
	conf.snaplen = f->snaplen;
	conf.lport = htons(f->lport);
	conf.rport = htons(f->rport);
	memcpy(conf.laddr, f->laddr, sizeof(conf.laddr));
	memcpy(conf.raddr, f->raddr, sizeof(conf.raddr));
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return err_set(err, "eBPF wire counter: out of memory");
	b->ncpu = libbpf_num_possible_cpus();
	if (b->ncpu < 1) {
		free(b);
		return err_set(err, "eBPF wire counter: cannot count CPUs");
	}
	b->obj =
	    bpf_object__open_mem(wire_count_obj, sizeof(wire_count_obj), NULL);
	if (b->obj == NULL) {
		rc = -errno;
		goto fail;
	}
	rc = bpf_object__load(b->obj);
	if (rc < 0)
		goto fail;
	prog = bpf_object__find_program_by_name(b->obj, "wire_count");
	conf_fd = wire_bpf_map_fd(b->obj, "conf");
	b->counts_fd = wire_bpf_map_fd(b->obj, "counts");
	b->seqs_fd = wire_bpf_map_fd(b->obj, "seqs");
	if (prog == NULL || conf_fd < 0 || b->counts_fd < 0 || b->seqs_fd < 0) {
		rc = -ENOENT;
		goto fail;
	}
	pfd = bpf_program__fd(prog);
	if (bpf_map_update_elem(conf_fd, &zero, &conf, BPF_ANY) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &pfd, sizeof(pfd)) < 0) {
		rc = -errno;
		goto fail;
	}
	*out = b;
	return 0;
fail:
	err_set(err, "the kernel refused the eBPF wire counter: %s",
		strerror(-rc));
	bpf_object__close(b->obj);
	free(b);
	return -1;
}

int
wire_bpf_reset(const struct wire_bpf *b, char *err)
{
	struct wire_bpf_dir *v;
	__u32 key;

	v = calloc((size_t)b->ncpu, sizeof(*v));
	if (v == NULL)
		return err_set(err, "eBPF wire counter: out of memory");
	for (key = 0; key < 2; key++)
		if (bpf_map_update_elem(b->counts_fd, &key, v, BPF_ANY) < 0) {
			err_set(err, "eBPF wire counter: cannot reset: %s",
				strerror(errno));
			free(v);
			return -1;
		}
	free(v);
	return 0;
}

int
wire_bpf_read(const struct wire_bpf *b, struct wire_bpf_counts dir[2],
	      char *err)
{
	struct wire_bpf_dir *v;
	__u32 key;
	int i;

	v = calloc((size_t)b->ncpu, sizeof(*v));
	if (v == NULL)
		return err_set(err, "eBPF wire counter: out of memory");
	memset(dir, 0, 2 * sizeof(*dir));
	for (key = 0; key < 2; key++) {
		if (bpf_map_lookup_elem(b->counts_fd, &key, v) < 0) {
			err_set(err, "eBPF wire counter: cannot read: %s",
				strerror(errno));
			free(v);
			return -1;
		}
		for (i = 0; i < b->ncpu; i++) {
			dir[key].packets += v[i].packets;
			dir[key].bytes += v[i].bytes;
			dir[key].payload += v[i].payload;
			if (v[i].max_len > dir[key].max_len)
				dir[key].max_len = (uint32_t)v[i].max_len;
		}
	}
	free(v);
	return 0;
}

int
wire_bpf_handed(const struct wire_bpf *b, int side, uint16_t sport,
		uint16_t dport, uint32_t *next)
{
	struct wire_bpf_key key;
	__u64 w;

	memset(&key, 0, sizeof(key));
	key.side = (__u32)side;
	key.sport = sport;
	key.dport = dport;
	if (bpf_map_lookup_elem(b->seqs_fd, &key, &w) < 0 ||
	    !(w & WIRE_BPF_HANDED))
		return 0;
	*next = (uint32_t)w;
	return 1;
}

void
wire_bpf_free(struct wire_bpf *b)
{
	if (b == NULL)
		return;
	bpf_object__close(b->obj);
	free(b);
}
