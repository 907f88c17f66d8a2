package dev.locksmith.samples.springboot;

/**
 * A transfer that was committed, with the balances it left.
 *
 * @param from the debited account
 * @param to the credited account
 * @param cents the amount moved
 * @param fromBalanceCents the balance of {@code from} after the transfer
 * @param toBalanceCents the balance of {@code to} after the transfer
 */
record TransferResult(
    String from, String to, long cents, long fromBalanceCents, long toBalanceCents) {}
