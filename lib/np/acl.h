/*
 * Allow-lists of client networks: "127.0.0.0/8,::1/128" parsed into
 * prefixes, and a matcher. An IPv4 address is held as its IPv4-mapped IPv6
 * form (::ffff:a.b.c.d), so one comparison serves both families, and an
 * IPv4 client that reached an IPv6 socket matches its IPv4 network.
 */
#ifndef NP_ACL_H
#define NP_ACL_H

#include <sys/socket.h>

/* The most networks one list holds. */
#define ACL_MAX 64
/* An address in text form, as acl_addr_text writes it. */
#define ACL_ADDR_LEN 64

struct acl_net {
	unsigned char addr[16]; /* IPv6, or IPv4-mapped IPv6 */
	int prefix;		/* leading bits that must match, 0..128 */
};

struct acl {
	struct acl_net net[ACL_MAX];
	int n; /* 0: no list, everyone is allowed */
};

/*
 * Appends the networks of list, "CIDR[,CIDR...]", each an IPv4 or IPv6
 * address with an optional "/prefix" (a single host without one). Host
 * bits set beyond the prefix are an error, not silently cleared. Returns
 * 0, or -1 with err naming the bad item (a leaves a's earlier entries).
 */
int acl_parse(struct acl *a, const char *list, char *err);

/* The 16-byte key of a socket address (IPv4 as IPv4-mapped IPv6); returns
 * 0, or -1 for a family other than AF_INET and AF_INET6. */
int acl_addr_key(const struct sockaddr *sa, unsigned char key[16]);

/* Returns 1 when key lies in one of a's networks, else 0. */
int acl_match(const struct acl *a, const unsigned char key[16]);

/* Returns 1 when a allows the client at sa: always when a is empty, never
 * for a family it cannot hold. */
int acl_allows(const struct acl *a, const struct sockaddr *sa);

/* Writes sa's address into buf (ACL_ADDR_LEN bytes) as a person reads it:
 * an IPv4-mapped address as plain IPv4. */
void acl_addr_text(const struct sockaddr *sa, char *buf);

/* Keeps the first bits of an IPv6 key (one from acl_addr_key) and clears
 * the rest; an IPv4 key is left whole. */
void acl_key_prefix(unsigned char key[16], int bits);

/* Formats a key as acl_addr_text does, with "/bits" after an IPv6 one
 * cut to fewer than 128 bits; buf holds ACL_ADDR_LEN bytes. */
void acl_key_text(const unsigned char key[16], int bits, char *buf);

#endif
