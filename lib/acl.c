#include "np/acl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np/err.h"

/* The 12-byte prefix of an IPv4-mapped IPv6 address. */
static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff};

/* 1 when the bits of key past prefix are all zero. */
static int
host_bits_clear(const unsigned char key[16], int prefix)
{
	int i;

	for (i = prefix; i < 128; i++)
		if (key[i / 8] & (0x80 >> (i % 8)))
			return 0;
	return 1;
}

/* Parses one "addr[/prefix]" of len bytes into net; returns 0, or -1. */
static int
parse_one(const char *item, size_t len, struct acl_net *net, char *err)
{
	char text[INET6_ADDRSTRLEN + 8], *slash, *end;
	struct in_addr a4;
	int v6, max, prefix;
	long v;

	if (len == 0)
		return err_set(err, "empty network in the list");
	if (len >= sizeof(text))
		return err_set(err, "\"%.*s...\" is not a network", 40, item);
	memcpy(text, item, len);
	text[len] = '\0';
	slash = strchr(text, '/');
	if (slash != NULL)
		*slash = '\0';
	v6 = strchr(text, ':') != NULL;
	max = v6 ? 128 : 32;
	if (v6) {
		if (inet_pton(AF_INET6, text, net->addr) != 1)
			goto bad;
	} else {
		if (inet_pton(AF_INET, text, &a4) != 1)
			goto bad;
		memcpy(net->addr, v4_mapped, 12);
		memcpy(net->addr + 12, &a4, 4);
	}
	prefix = max;
	if (slash != NULL) {
		/* Digits only: no sign, no space, no hex. */
		if (slash[1] < '0' || slash[1] > '9')
			goto bad;
		v = strtol(slash + 1, &end, 10);
		if (*end != '\0' || v < 0 || v > max) {
			*slash = '/';
			return err_set(err,
				       "\"%s\": the prefix length must be "
				       "0 to %d",
				       text, max);
		}
		prefix = (int)v;
	}
	net->prefix = v6 ? prefix : 96 + prefix;
	if (!host_bits_clear(net->addr, net->prefix)) {
		if (slash != NULL)
			*slash = '/';
		return err_set(err,
			       "\"%s\" has bits set past its prefix length; "
			       "give the network's first address",
			       text);
	}
	return 0;
bad:
	if (slash != NULL)
		*slash = '/';
	return err_set(err, "\"%s\" is not an IPv4 or IPv6 network", text);
}

int
acl_parse(struct acl *a, const char *list, char *err)
{
	const char *p = list, *comma;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (a->n == ACL_MAX)
			return err_set(err, "more than %d networks", ACL_MAX);
		if (parse_one(p, len, &a->net[a->n], err) < 0)
			return -1;
		a->n++;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

int
acl_addr_key(const struct sockaddr *sa, unsigned char key[16])
{
	switch (sa->sa_family) {
	case AF_INET:
		memcpy(key, v4_mapped, 12);
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr,
		       4);
		return 0;
	case AF_INET6:
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	default:
		return -1;
	}
}

int
acl_match(const struct acl *a, const unsigned char key[16])
{
	int i, bits, full;

	for (i = 0; i < a->n; i++) {
		bits = a->net[i].prefix;
		full = bits / 8;
		if (memcmp(a->net[i].addr, key, (size_t)full) != 0)
			continue;
		if (bits % 8 != 0) {
			unsigned char mask =
			    (unsigned char)(0xff << (8 - bits % 8));

			if ((a->net[i].addr[full] ^ key[full]) & mask)
				continue;
		}
		return 1;
	}
	return 0;
}

int
acl_allows(const struct acl *a, const struct sockaddr *sa)
{
	unsigned char key[16];

	if (a->n == 0)
		return 1;
	if (acl_addr_key(sa, key) < 0)
		return 0;
	return acl_match(a, key);
}

void
acl_addr_text(const struct sockaddr *sa, char *buf)
{
	unsigned char key[16];

	if (acl_addr_key(sa, key) < 0) {
		snprintf(buf, ACL_ADDR_LEN, "unknown");
		return;
	}
	if (memcmp(key, v4_mapped, 12) == 0)
		inet_ntop(AF_INET, key + 12, buf, ACL_ADDR_LEN);
	else
		inet_ntop(AF_INET6, key, buf, ACL_ADDR_LEN);
}

void
acl_key_prefix(unsigned char key[16], int bits)
{
	int i;

	if (memcmp(key, v4_mapped, 12) == 0 || bits >= 128)
		return;
	if (bits < 0)
		bits = 0;
	for (i = bits / 8; i < 16; i++)
		key[i] &= i == bits / 8 ? (unsigned char)(0xff00 >> (bits % 8))
					: 0;
}

void
acl_key_text(const unsigned char key[16], int bits, char *buf)
{
	char text[INET6_ADDRSTRLEN];

	if (memcmp(key, v4_mapped, 12) == 0) {
		inet_ntop(AF_INET, key + 12, buf, ACL_ADDR_LEN);
		return;
	}
	inet_ntop(AF_INET6, key, text, sizeof(text));
	if (bits >= 128)
		snprintf(buf, ACL_ADDR_LEN, "%s", text);
	else
		snprintf(buf, ACL_ADDR_LEN, "%s/%d", text, bits & 0xff);
}
