#include "np/wire_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ebpf/wire_count.h"
#include "np/err.h"
/* The compiled counter, as bytes: wire_count_obj and its length. */
#include "wire_count.bpf.inc"

struct wire_bpf {
	struct bpf_object *obj;
	int counts_fd, lost_fd, seqs_fd, words_fd, ring_fd;
	int ncpu;
	/* Both ports known: the program finds the sequence words by
	 * direction alone, not in the table seqs. */
	int one_flow;
	/* At the tc hook: the link that holds the program there, and the
	 * reader of the packets it hands on. */
	int link_fd;
	struct ring_buffer *ring;
	wire_bpf_hand_fn hand;
	void *hand_ctx;
	/* The sequence words, mapped: the capture reads where a direction
	 * was handed over and gives it back here. */
	uint64_t *words;
	size_t words_len;
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

/* Linux 6.6's tcx attach point on the way in, and the flag that puts a
 * program before the others there; older headers lack the names. */
#define WIRE_BPF_TCX_INGRESS 46
#define WIRE_BPF_F_BEFORE (1U << 3)

/*
 * Loads the counter for f with only program prog_name in it and a
 * hand-over ring of ring_bytes (a power of two pages), and fills its table
 * of the flow. Returns b, or NULL with err set.
 */
static struct wire_bpf *
wire_bpf_load(const struct wire_bpf_flow *f, const char *prog_name,
	      __u32 ring_bytes, int *prog_fd, char *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct wire_bpf_conf conf;
	struct bpf_program *prog, *p;
	struct bpf_map *ring, *counts, *m;
	struct wire_bpf *b;
	void *words;
	int rc;

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
	if (b == NULL) {
		err_set(err, "eBPF wire counter: out of memory");
		return NULL;
	}
	b->link_fd = -1;
	b->ncpu = libbpf_num_possible_cpus();
	if (b->ncpu < 1) {
		free(b);
		err_set(err, "eBPF wire counter: cannot count CPUs");
		return NULL;
	}
	b->obj =
	    bpf_object__open_mem(wire_count_obj, sizeof(wire_count_obj), NULL);
	if (b->obj == NULL) {
		rc = -errno;
		goto fail;
	}
	prog = bpf_object__find_program_by_name(b->obj, prog_name);
	if (prog == NULL) {
		rc = -ENOENT;
		goto fail;
	}
	/* The other program would be checked and loaded for nothing. */
	bpf_object__for_each_program(p, b->obj)
		bpf_program__set_autoload(p, p == prog);
	ring = bpf_object__find_map_by_name(b->obj, "handed");
	if (ring != NULL)
		bpf_map__set_max_entries(ring, ring_bytes);
	/* An entry for each CPU the program may run on. */
	counts = bpf_object__find_map_by_name(b->obj, "counts");
	if (counts != NULL)
		bpf_map__set_max_entries(counts, (__u32)b->ncpu);
	/* The flow is the program's only constant: it is the whole of its
	 * read-only data, which the kernel freezes before it checks the
	 * program. */
	rc = -ENOENT;
	bpf_object__for_each_map(m, b->obj)
		if (bpf_map__is_internal(m) &&
		    strstr(bpf_map__name(m), ".rodata") != NULL)
			rc = bpf_map__set_initial_value(m, &conf, sizeof(conf));
	if (rc < 0) {
		err_set(err,
			"eBPF wire counter: its read-only data is not the "
			"flow (%s)",
			strerror(-rc));
		wire_bpf_free(b);
		return NULL;
	}
	rc = bpf_object__load(b->obj);
	if (rc < 0)
		goto fail;
	b->counts_fd = wire_bpf_map_fd(b->obj, "counts");
	b->lost_fd = wire_bpf_map_fd(b->obj, "lost");
	b->seqs_fd = wire_bpf_map_fd(b->obj, "seqs");
	b->words_fd = wire_bpf_map_fd(b->obj, "words");
	b->ring_fd = wire_bpf_map_fd(b->obj, "handed");
	b->one_flow = conf.rport != 0;
	if (b->counts_fd < 0 || b->lost_fd < 0 || b->seqs_fd < 0 ||
	    b->words_fd < 0 || b->ring_fd < 0) {
		rc = -ENOENT;
		goto fail;
	}
	b->words_len = (size_t)sysconf(_SC_PAGESIZE);
	while (b->words_len < WIRE_BPF_WORDS * sizeof(uint64_t))
		b->words_len *= 2;
	words = mmap(NULL, b->words_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     b->words_fd, 0);
	if (words == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	b->words = words;
	*prog_fd = bpf_program__fd(prog);
	return b;
fail:
	err_set(err, "the kernel refused the eBPF wire counter: %s",
		strerror(-rc));
	wire_bpf_free(b);
	return NULL;
}

int
wire_bpf_attach(int fd, const struct wire_bpf_flow *f, struct wire_bpf **out,
		char *err)
{
	struct wire_bpf *b;
	int pfd;

	*out = NULL;
	/* A socket's counter hands nothing through the ring: one page. */
	b = wire_bpf_load(f, "wire_count", (__u32)sysconf(_SC_PAGESIZE), &pfd,
			  err);
	if (b == NULL)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &pfd, sizeof(pfd)) < 0) {
		err_set(err, "the kernel refused the eBPF wire counter: %s",
			strerror(errno));
		wire_bpf_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

/* The ring's reader calls this for each record: one packet handed on. */
static int
wire_bpf_record(void *ctx, void *data, size_t size)
{
	const struct wire_bpf_rec *r = data;
	struct wire_bpf *b = ctx;

	if (size < sizeof(*r) || r->caplen > WIRE_BPF_SNAP)
		return 0;
	b->hand(b->hand_ctx, r->data, r->caplen, r->len, r->judged != 0);
	return 0;
}

int
wire_bpf_attach_tc(int ifindex, const struct wire_bpf_flow *f,
		   wire_bpf_hand_fn hand, void *ctx, struct wire_bpf **out,
		   char *err)
{
	struct wire_bpf *b;
	int pfd;

	*out = NULL;
	b = wire_bpf_load(f, "wire_count_tc", WIRE_BPF_RING, &pfd, err);
	if (b == NULL)
		return -1;
	b->hand = hand;
	b->hand_ctx = ctx;
	b->ring = ring_buffer__new(b->ring_fd, wire_bpf_record, b, NULL);
	if (b->ring == NULL) {
		err_set(err, "eBPF wire counter: cannot read its ring: %s",
			strerror(errno));
		wire_bpf_free(b);
		return -1;
	}
	/* A link, not a pinned program: it goes with the last descriptor,
	 * so a netperf that dies leaves nothing on the interface. First on
	 * the hook, so that a program another tool put there cannot drop or
	 * redirect a packet before it is counted, as none can before a
	 * packet socket sees it. */
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = WIRE_BPF_F_BEFORE);
	b->link_fd = bpf_link_create(
	    pfd, ifindex, (enum bpf_attach_type)WIRE_BPF_TCX_INGRESS, &opts);
	if (b->link_fd < 0) {
		err_set(err,
			"the kernel refused the eBPF wire counter at the tc "
			"hook: %s",
			strerror(-b->link_fd));
		wire_bpf_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

void
wire_bpf_detach(struct wire_bpf *b)
{
	if (b->link_fd >= 0) {
		close(b->link_fd);
		b->link_fd = -1;
	}
}

int
wire_bpf_take(struct wire_bpf *b, char *err)
{
	int n;

	if (b->ring == NULL)
		return 0;
	n = ring_buffer__consume(b->ring);
	if (n < 0)
		return err_set(err, "eBPF wire counter: cannot read its ring: %s",
			       strerror(-n));
	return n;
}

int
wire_bpf_reset(const struct wire_bpf *b, char *err)
{
	struct wire_bpf_cpu v;
	__u32 key;
	__u64 zero = 0;

	memset(&v, 0, sizeof(v));
	for (key = 0; key < (__u32)b->ncpu; key++)
		if (bpf_map_update_elem(b->counts_fd, &key, &v, BPF_ANY) < 0)
			goto fail;
	key = 0;
	if (bpf_map_update_elem(b->lost_fd, &key, &zero, BPF_ANY) < 0)
		goto fail;
	return 0;
fail:
	return err_set(err, "eBPF wire counter: cannot reset: %s",
		       strerror(errno));
}

int
wire_bpf_read(const struct wire_bpf *b, struct wire_bpf_counts dir[2],
	      uint64_t *lost, char *err)
{
	struct wire_bpf_cpu v;
	__u32 key;
	int i;

	memset(dir, 0, 2 * sizeof(*dir));
	for (key = 0; key < (__u32)b->ncpu; key++) {
		if (bpf_map_lookup_elem(b->counts_fd, &key, &v) < 0)
			goto fail;
		for (i = 0; i < 2; i++) {
			dir[i].packets += v.dir[i].packets;
			dir[i].bytes += v.dir[i].bytes;
			dir[i].payload += v.dir[i].payload;
			if (v.dir[i].max_len > dir[i].max_len)
				dir[i].max_len = (uint32_t)v.dir[i].max_len;
		}
	}
	key = 0;
	if (bpf_map_lookup_elem(b->lost_fd, &key, lost) < 0)
		goto fail;
	return 0;
fail:
	return err_set(err, "eBPF wire counter: cannot read: %s",
		       strerror(errno));
}

uint64_t *
wire_bpf_word(const struct wire_bpf *b, int side, uint16_t sport,
	      uint16_t dport)
{
	struct wire_bpf_key key;
	__u32 slot;

	/* The one connection of a flow with both ports known: the ports
	 * are the flow's own, so the direction alone finds its word. */
	if (b->one_flow)
		return &b->words[side & 1];
	memset(&key, 0, sizeof(key));
	key.side = (__u32)side;
	key.sport = sport;
	key.dport = dport;
	if (bpf_map_lookup_elem(b->seqs_fd, &key, &slot) < 0 ||
	    slot < WIRE_BPF_WORD0 || slot >= WIRE_BPF_WORDS)
		return NULL;
	return &b->words[slot];
}

int
wire_bpf_handed(const uint64_t *word, uint32_t *next)
{
	uint64_t w = __atomic_load_n(word, __ATOMIC_ACQUIRE);

	if (!(w & (WIRE_BPF_HANDED | WIRE_BPF_SEEN)))
		return -1;
	*next = (uint32_t)w;
	return (w & WIRE_BPF_HANDED) != 0;
}

int
wire_bpf_give_back(uint64_t *word, uint32_t judged, uint32_t next)
{
	uint64_t w = __atomic_load_n(word, __ATOMIC_ACQUIRE), back;

	if (!(w & WIRE_BPF_HANDED) || (w & WIRE_BPF_KEPT) ||
	    ((uint32_t)(w >> WIRE_BPF_HAND_SHIFT) ^ judged) &
		WIRE_BPF_HAND_MASK)
		return 0;
	/* A segment judged since the read changed the word's count, and
	 * then the swap fails: the direction stays with the caller. */
	back = (w & ~(0xffffffffULL | WIRE_BPF_HANDED)) | next;
	return __atomic_compare_exchange_n(word, &w, back, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

void
wire_bpf_free(struct wire_bpf *b)
{
	if (b == NULL)
		return;
	wire_bpf_detach(b);
	if (b->words != NULL)
		munmap(b->words, b->words_len);
	ring_buffer__free(b->ring);
	bpf_object__close(b->obj);
	free(b);
}
