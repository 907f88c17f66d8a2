package dev.locksmith.samples.micronaut;

import io.micronaut.serde.annotation.Serdeable;

/**
 * The body of {@code POST /transfers}.
 *
 * @param from the account to debit
 * @param to the account to credit
 * @param cents the amount, positive
 */
@Serdeable
public record TransferRequest(String from, String to, long cents) {}
