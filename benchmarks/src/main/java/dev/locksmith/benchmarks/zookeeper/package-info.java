/**
 * The ZooKeeper provider against Apache Curator's own {@code InterProcessMutex} and a raw
 * create-ephemeral + delete baseline, on one ZooKeeper server of the benchmark's own.
 */
@NullMarked
package dev.locksmith.benchmarks.zookeeper;

import org.jspecify.annotations.NullMarked;
