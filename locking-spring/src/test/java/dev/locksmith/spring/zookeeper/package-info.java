/** The Boot starter on ZooKeeper: {@code locksmith.url=zk://...} and a CuratorFramework bean. */
@NullMarked
package dev.locksmith.spring.zookeeper;

import org.jspecify.annotations.NullMarked;
