package dev.locksmith.samples.springboot;

/**
 * An account and its balance.
 *
 * @param id the account id
 * @param balanceCents the balance in cents
 */
record Account(String id, long balanceCents) {}
