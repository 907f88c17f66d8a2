/**
 * The Redis provider against its peers on one local {@code redis-server}: the raw floor of two
 * scripts, Redisson {@code RLock}, ShedLock and Spring Integration's {@code RedisLockRegistry}.
 */
@NullMarked
package dev.locksmith.benchmarks.redis;

import org.jspecify.annotations.NullMarked;
