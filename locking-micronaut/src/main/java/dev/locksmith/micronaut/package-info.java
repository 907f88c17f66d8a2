/**
 * {@code @DistributedLock} for Micronaut 4: the interceptor that hands each call to the Locksmith
 * engine, the engine and provider beans configured under {@code locksmith.*}, start-up validation,
 * and the optional health indicator and Micrometer meters.
 */
@NullMarked
package dev.locksmith.micronaut;

import org.jspecify.annotations.NullMarked;
