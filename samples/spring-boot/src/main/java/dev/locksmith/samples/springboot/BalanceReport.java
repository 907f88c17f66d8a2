package dev.locksmith.samples.springboot;

import java.time.Instant;

/**
 * What one run of the {@link BalanceReportJob} saw.
 *
 * @param at when the report was made
 * @param accounts how many accounts there are
 * @param totalCents the sum of all balances: never changes, since transfers only move money
 * @param lowestCents the lowest balance: never below zero
 * @param lockId the lock the job held while it ran
 * @param fencingToken the fencing token of that lease
 */
record BalanceReport(
    Instant at,
    int accounts,
    long totalCents,
    long lowestCents,
    String lockId,
    long fencingToken) {}
