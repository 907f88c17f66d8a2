package dev.locksmith.spring.boot;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code locksmith.enabled} is on, or not set. The value is bound as the {@code
 * Boolean} the property is, so {@code on}, {@code yes} and {@code 1} are on and {@code off}, {@code
 * no} and {@code 0} off, and any other value fails the start naming the property: a typo never
 * turns locking off without a word ({@code @ConditionalOnBooleanProperty} takes only {@code true}
 * and {@code false}, so {@code on} would match neither this nor the disabled warning).
 */
class LockingEnabledCondition extends SpringBootCondition {
  static final String PROPERTY = "locksmith.enabled";

  static boolean enabled(Environment environment) {
    return Binder.get(environment).bind(PROPERTY, Boolean.class).orElse(true);
  }

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    return enabled(context.getEnvironment())
        ? ConditionOutcome.match(PROPERTY + " is on or not set")
        : ConditionOutcome.noMatch(PROPERTY + " is off");
  }

  /** The opposite: {@code locksmith.enabled} set to off. */
  static final class Disabled extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      return enabled(context.getEnvironment())
          ? ConditionOutcome.noMatch(PROPERTY + " is on or not set")
          : ConditionOutcome.match(PROPERTY + " is off");
    }
  }
}
