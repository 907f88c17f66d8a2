/**
 * The Locksmith lock server: leases in memory, FIFO waiters with pushed grants, fencing tokens
 * persisted by high-water mark, over a line-based text protocol on Netty. Start it with {@link
 * dev.locksmith.tcp.server.LockServer#builder()} or {@link
 * dev.locksmith.tcp.server.LockServerMain}.
 */
@NullMarked
package dev.locksmith.tcp.server;

import org.jspecify.annotations.NullMarked;
