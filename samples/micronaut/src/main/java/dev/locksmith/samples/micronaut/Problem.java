package dev.locksmith.samples.micronaut;

import io.micronaut.serde.annotation.Serdeable;

/**
 * The body of an error response.
 *
 * @param message what went wrong
 */
@Serdeable
public record Problem(String message) {}
