/* Big-endian (network order) integers in byte buffers, at any alignment:
 * the one copy the control protocol, netperf 2.7's messages, the UDP
 * test header and the packet parser share. */
#ifndef NP_BE_H
#define NP_BE_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t
be16_get(const void *buf)
{
	const uint8_t *p = buf;

	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
be32_get(const void *buf)
{
	const uint8_t *p = buf;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t
be64_get(const void *buf)
{
	const uint8_t *p = buf;

	return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

static inline void
be32_put(void *buf, uint32_t v)
{
	uint8_t *p = buf;

	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
be64_put(void *buf, uint64_t v)
{
	uint8_t *p = buf;

	be32_put(p, (uint32_t)(v >> 32));
	be32_put(p + 4, (uint32_t)v);
}

/* The low len (at most 8) bytes of v at buf, big-endian: UDP_RR's tag. */
static inline void
ben_put(void *buf, uint64_t v, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = len; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

/* Reads back len bytes that ben_put wrote. */
static inline uint64_t
ben_get(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
