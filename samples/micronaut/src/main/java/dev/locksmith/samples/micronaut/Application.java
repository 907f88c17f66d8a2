package dev.locksmith.samples.micronaut;

import io.micronaut.runtime.Micronaut;

/** Starts the bank: HTTP on {@code micronaut.server.port}, locks from {@code locksmith.url}. */
public final class Application {
  private Application() {}

  /** Runs the application until it is stopped. */
  public static void main(String[] args) {
    Micronaut.run(Application.class, args);
  }
}
