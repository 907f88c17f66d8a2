/**
 * Bounded latency loops and their Markdown tables, shared by the comparisons that time locks with
 * {@code System.nanoTime()} (JDBC, ZooKeeper): uncontended pairs in interleaved rounds and hot-key
 * hand-offs between two contenders.
 */
@NullMarked
package dev.locksmith.benchmarks.latency;

import org.jspecify.annotations.NullMarked;
