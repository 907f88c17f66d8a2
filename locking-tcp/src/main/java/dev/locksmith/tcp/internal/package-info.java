/**
 * Internal, not API: what the lock server and its client share: the wire encoding of lock ids and
 * the protocol's limits and defaults. The protocol itself is specified in {@code
 * locking-tcp/PROTOCOL.md}.
 */
@NullMarked
package dev.locksmith.tcp.internal;

import org.jspecify.annotations.NullMarked;
