/**
 * A lock provider on Apache ZooKeeper through Apache Curator: leases are ephemeral sequential nodes
 * held by a ZooKeeper session, granted in FIFO order and pushed to waiters, with the lock node's
 * creation zxid as the fencing token.
 */
@NullMarked
package dev.locksmith.zookeeper;

import org.jspecify.annotations.NullMarked;
