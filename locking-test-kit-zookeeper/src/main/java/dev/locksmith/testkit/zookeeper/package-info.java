/**
 * ZooKeeper servers and ensembles for tests, run in the test's JVM by Curator's {@code
 * curator-test} and bound to 127.0.0.1 only: {@link dev.locksmith.testkit.zookeeper.TestZooKeeper}.
 */
@NullMarked
package dev.locksmith.testkit.zookeeper;

import org.jspecify.annotations.NullMarked;
