/**
 * A plain Java batch job whose {@code @DistributedLock} methods are woven at compile time by ajc:
 * {@link dev.locksmith.samples.aspectj.SettlementJob} settles a set of accounts round after round,
 * and any number of copies of it may run at once against the same lock directory and ledger.
 */
@NullMarked
package dev.locksmith.samples.aspectj;

import org.jspecify.annotations.NullMarked;
