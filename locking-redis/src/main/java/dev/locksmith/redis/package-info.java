/**
 * The Redis provider ({@code redis://}, {@code rediss://}): leases as hashes with millisecond TTLs,
 * fencing counters and wake-up channels, driven by atomic Lua scripts through Redisson.
 */
@NullMarked
package dev.locksmith.redis;

import org.jspecify.annotations.NullMarked;
