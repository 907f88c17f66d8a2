package dev.locksmith.micronaut.app;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** A bean whose locked method is its interface's default method, not overridden. */
@Singleton
@Requires(env = "default-method")
class DefaultMethodJob implements DailyDefaults {}
