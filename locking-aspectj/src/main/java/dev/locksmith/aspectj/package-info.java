/**
 * {@code @DistributedLock} for plain Java through AspectJ: {@link
 * dev.locksmith.aspectj.DistributedLockAspect} is woven at compile time, into compiled classes, or
 * at load time, and hands each call to the engine that {@link
 * dev.locksmith.aspectj.AspectLocksmith} holds.
 */
@NullMarked
package dev.locksmith.aspectj;

import org.jspecify.annotations.NullMarked;
