/**
 * Spring integration: {@code @EnableDistributedLocking}, the AOP advisor that runs
 * {@code @DistributedLock} methods through the Locksmith engine, and start-up validation.
 */
@NullMarked
package dev.locksmith.spring;

import org.jspecify.annotations.NullMarked;
