package dev.locksmith.spring;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/** The engine for {@link EnableDistributedLocking}, unless the application defines one. */
@Configuration(proxyBeanMethods = false)
@Conditional(MissingLocksmithCondition.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class LocksmithConfiguration {

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static Locksmith locksmith(ConfigurableListableBeanFactory beanFactory, Environment environment) {
    return SpringLocksmith.create(
        beanFactory,
        environment,
        settings(environment),
        builder -> {
          apply(environment, "locksmith.shutdown-timeout", builder::shutdownTimeout);
          apply(environment, "locksmith.provider-probe-interval", builder::providerProbeInterval);
        });
  }

  /**
   * Gives a duration property that Boot would bind to the engine's builder, read as core's
   * durations are written ({@code 10s}, {@code PT10S}).
   */
  private static void apply(Environment environment, String property, Consumer<Duration> setter) {
    String text = environment.getProperty(property);
    if (text == null) {
      return;
    }
    try {
      setter.accept(Durations.parse(text));
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException("Property " + property + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads {@code locksmith.*} from every enumerable property source of the environment, and the
   * {@code LOCKSMITH_*} variables core reads ({@link LocksmithSettings#propertyForVariable}), the
   * first source that has a setting winning, as Spring's own lookups do.
   */
  static LocksmithSettings settings(Environment environment) {
    Map<String, String> properties = new TreeMap<>();
    if (environment instanceof ConfigurableEnvironment configurable) {
      for (PropertySource<?> source : configurable.getPropertySources()) {
        if (source instanceof EnumerablePropertySource<?> enumerable) {
          for (String name : enumerable.getPropertyNames()) {
            String key =
                name.startsWith("locksmith.")
                    ? name
                    : LocksmithSettings.propertyForVariable(name).orElse(null);
            Object value = key == null ? null : source.getProperty(name);
            if (value != null) {
              properties.putIfAbsent(key, environment.resolvePlaceholders(value.toString()));
            }
          }
        }
      }
    }
    String url = environment.getProperty("locksmith.url");
    if (url != null) {
      properties.put("locksmith.url", url);
    }
    return LocksmithSettings.from(properties);
  }
}
