package dev.locksmith.spring.boot;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a switch property is on, or not set. The value is bound as the {@code Boolean} the
 * property is, so {@code on}, {@code yes} and {@code 1} are on and {@code off}, {@code no} and
 * {@code 0} off, and any other value fails the start naming the property: a typo never turns a
 * switch off without a word ({@code @ConditionalOnBooleanProperty} takes only {@code true} and
 * {@code false}, so {@code on} would match neither it nor its opposite).
 */
abstract class OnOffPropertyCondition extends SpringBootCondition {
  private final String property;
  private final boolean matchWhenOn;

  OnOffPropertyCondition(String property, boolean matchWhenOn) {
    this.property = property;
    this.matchWhenOn = matchWhenOn;
  }

  static boolean isOn(Environment environment, String property) {
    return Binder.get(environment).bind(property, Boolean.class).orElse(true);
  }

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    boolean on = isOn(context.getEnvironment(), property);
    String why = property + (on ? " is on or not set" : " is off");
    return on == matchWhenOn ? ConditionOutcome.match(why) : ConditionOutcome.noMatch(why);
  }

  /** {@code locksmith.redisson.enabled} on or not set. */
  static final class RedissonEnabled extends OnOffPropertyCondition {
    RedissonEnabled() {
      super("locksmith.redisson.enabled", true);
    }
  }

  /** {@code locksmith.curator.enabled} on or not set. */
  static final class CuratorEnabled extends OnOffPropertyCondition {
    CuratorEnabled() {
      super("locksmith.curator.enabled", true);
    }
  }
}
