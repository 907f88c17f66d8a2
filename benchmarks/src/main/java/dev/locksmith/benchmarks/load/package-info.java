/**
 * Load harnesses that JMH does not fit: lock+unlock throughput of many concurrent clients, and
 * hand-off latency percentiles on one hot key. Bounded in time and count, loopback only.
 */
@NullMarked
package dev.locksmith.benchmarks.load;

import org.jspecify.annotations.NullMarked;
