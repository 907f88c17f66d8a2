/**
 * The Locksmith lock server: leases in memory, FIFO waiters with pushed grants, fencing tokens
 * persisted by high-water mark, over a line-based text protocol on Netty. Start it in-process with
 * {@link dev.locksmith.tcp.server.LockServer#builder()}; from the command line, {@code locksmith
 * server} (locking-cli) runs it.
 */
@NullMarked
package dev.locksmith.tcp.server;

import org.jspecify.annotations.NullMarked;
