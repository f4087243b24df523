/* The verbs exchange of bindings/verbs-protocol.md (peer-verbs.c), in peer. */
#ifndef PEER_VERBS_H
#define PEER_VERBS_H

/* Runs the exchange as which ("server" or "client") on ADDR PORT: 0, or
 * the process exits 1 with a message. */
int verbs_peer(const char *which, const char *addr, const char *port);

#endif
