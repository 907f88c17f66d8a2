package dev.locksmith.spring.boot;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LocksmithSettings;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns a start-up failure caused by a lock configuration mistake or an unreachable provider into
 * Boot's "APPLICATION FAILED TO START" report: what was wrong and where, and what to do, instead of
 * a stack trace.
 */
public final class LocksmithFailureAnalyzer implements FailureAnalyzer {

  /** Creates the analyzer; Boot instantiates it from {@code META-INF/spring.factories}. */
  public LocksmithFailureAnalyzer() {}

  @Override
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof LockConfigurationException e) {
        return new FailureAnalysis(
            "Invalid lock configuration: " + e.getMessage(),
            "Correct the @DistributedLock attribute or the locksmith.* property named above."
                + " Durations look like 10s, 500ms or PT1M; keys are SpEL expressions over the"
                + " method's parameters (#name needs -parameters, else #p0); provider URLs look"
                + " like tcp://host:7420, redis://host:6379, file:///path, jdbc:postgresql://host/db,"
                + " zk://host:2181 or mem:, or jdbc for the application's DataSource.",
            e);
      }
      if (cause instanceof LockProviderException e) {
        String message = String.valueOf(e.getMessage());
        String action =
            message.contains(LocksmithSettings.REQUIRE_PROVIDERS_AT_STARTUP)
                ? "Make the lock backend reachable from this host, or let the application start"
                    + " without it by removing "
                    + LocksmithSettings.REQUIRE_PROVIDERS_AT_STARTUP
                    + "=true: the 'locksmith' health contributor then reports DOWN and locked"
                    + " calls fail fast until the backend answers."
                : "Make the lock backend reachable from this host: check the host and port of the"
                    + " provider URL named above.";
        String description =
            message.contains("at start-up")
                ? message
                : "A lock provider did not answer at start-up: " + message;
        return new FailureAnalysis(description, action, e);
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }
}
