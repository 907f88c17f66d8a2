package dev.locksmith.spring.boot;

import org.springframework.core.env.Environment;

/**
 * Matches when {@code locksmith.enabled} is on, or not set; see {@link OnOffPropertyCondition} for
 * the values it takes.
 */
final class LockingEnabledCondition extends OnOffPropertyCondition {
  static final String PROPERTY = "locksmith.enabled";

  LockingEnabledCondition() {
    super(PROPERTY, true);
  }

  static boolean enabled(Environment environment) {
    return isOn(environment, PROPERTY);
  }

  /** The opposite: {@code locksmith.enabled} set to off. */
  static final class Disabled extends OnOffPropertyCondition {
    Disabled() {
      super(PROPERTY, false);
    }
  }
}
