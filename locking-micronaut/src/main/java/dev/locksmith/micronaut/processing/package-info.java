/**
 * Compile-time support: the annotation mapper that turns {@code @DistributedLock} into a Micronaut
 * interceptor binding. Used only by the annotation processor.
 */
@NullMarked
package dev.locksmith.micronaut.processing;

import org.jspecify.annotations.NullMarked;
