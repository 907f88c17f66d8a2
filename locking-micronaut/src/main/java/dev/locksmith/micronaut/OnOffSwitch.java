package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import io.micronaut.context.condition.Condition;
import io.micronaut.context.condition.ConditionContext;
import io.micronaut.core.value.PropertyResolver;
import java.util.Locale;

/**
 * Matches when a switch property is on, or not set. {@code true}, {@code on}, {@code yes} and
 * {@code 1} are on; {@code false}, {@code off}, {@code no} and {@code 0} off, in any case, as the
 * Spring Boot integration reads them; any other value stops the start naming the property.
 * {@code @Requires(property = ..., notEquals = "false")} compares the text, so an environment
 * variable {@code LOCKSMITH_ENABLED=FALSE} would leave locking on, and a typo would go unnoticed.
 */
abstract class OnOffSwitch implements Condition {
  private final String property;
  private final boolean matchWhenOn;

  OnOffSwitch(String property, boolean matchWhenOn) {
    this.property = property;
    this.matchWhenOn = matchWhenOn;
  }

  /**
   * Whether {@code key} is on in {@code properties}; {@code unset} when it is not set.
   *
   * @throws LockConfigurationException naming the key and its value when it is neither on nor off
   */
  static boolean isOn(PropertyResolver properties, String key, boolean unset) {
    String value = properties.get(key, String.class).orElse(null);
    return value == null ? unset : parse(key, value);
  }

  /**
   * Whether {@code value}, set for {@code key}, is on; for a switch read as text ({@code @Value}
   * into a {@code boolean} takes any value but the four words for true as false).
   *
   * @throws LockConfigurationException naming the key and its value when it is neither on nor off
   */
  static boolean parse(String key, String value) {
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true", "on", "yes", "1" -> true;
      case "false", "off", "no", "0" -> false;
      default ->
          throw new LockConfigurationException(key + ": '" + value + "' is not true or false");
    };
  }

  @Override
  @SuppressWarnings("rawtypes") // as Condition declares it
  public boolean matches(ConditionContext context) {
    // The condition context resolves properties itself, from the environment when the bean
    // context has one (a plain BeanContext has none: every switch is then unset).
    boolean on = isOn(context, property, true);
    if (on != matchWhenOn) {
      context.fail(property + (on ? " is on or not set" : " is off"));
    }
    return on == matchWhenOn;
  }

  /** {@code locksmith.enabled} on or not set. */
  static final class LockingEnabled extends OnOffSwitch {
    LockingEnabled() {
      super(LocksmithFactory.ENABLED, true);
    }
  }

  /** {@code locksmith.enabled} off. */
  static final class LockingDisabled extends OnOffSwitch {
    LockingDisabled() {
      super(LocksmithFactory.ENABLED, false);
    }
  }

  /** {@code locksmith.redisson.enabled} on or not set. */
  static final class RedissonEnabled extends OnOffSwitch {
    RedissonEnabled() {
      super("locksmith.redisson.enabled", true);
    }
  }

  /** {@code locksmith.curator.enabled} on or not set. */
  static final class CuratorEnabled extends OnOffSwitch {
    CuratorEnabled() {
      super("locksmith.curator.enabled", true);
    }
  }

  /** {@code locksmith.metrics.enabled} on or not set. */
  static final class MetricsEnabled extends OnOffSwitch {
    MetricsEnabled() {
      super("locksmith.metrics.enabled", true);
    }
  }

  /** {@code locksmith.health.enabled} on or not set. */
  static final class HealthEnabled extends OnOffSwitch {
    HealthEnabled() {
      super("locksmith.health.enabled", true);
    }
  }
}
