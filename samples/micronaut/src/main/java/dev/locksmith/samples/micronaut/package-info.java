/**
 * A small Micronaut bank: {@link dev.locksmith.samples.micronaut.BankController} moves money
 * between accounts under a per-account {@code @DistributedLock}, and {@link
 * dev.locksmith.samples.micronaut.StatementJob} is a {@code @Scheduled} job that runs once per tick
 * across all instances ({@code SKIP}).
 */
@NullMarked
package dev.locksmith.samples.micronaut;

import org.jspecify.annotations.NullMarked;
