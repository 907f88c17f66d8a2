package dev.locksmith.micronaut.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** A meter registry to read the engine's meters from, in the environments whose tests do. */
@Factory
@Requires(env = {"curator", "datasource", "providers", "meters"})
class TestMeters {

  @Singleton
  SimpleMeterRegistry simpleMeterRegistry() {
    return new SimpleMeterRegistry();
  }
}
