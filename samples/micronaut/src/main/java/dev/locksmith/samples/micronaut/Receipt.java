package dev.locksmith.samples.micronaut;

import io.micronaut.serde.annotation.Serdeable;

/**
 * A completed transfer and both balances right after it.
 *
 * @param from the debited account
 * @param to the credited account
 * @param cents the amount moved
 * @param fromBalance the debited account's balance after the transfer
 * @param toBalance the credited account's balance after the transfer
 */
@Serdeable
public record Receipt(String from, String to, long cents, long fromBalance, long toBalance) {}
