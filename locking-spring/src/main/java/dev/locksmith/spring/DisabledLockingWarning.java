package dev.locksmith.spring;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

/**
 * Registered when locking is turned off ({@code locksmith.enabled=false}): once all singletons
 * exist, logs a warning naming how many {@code @DistributedLock} methods will run without a lock,
 * so that a switch left off in production does not go unnoticed. When {@code
 * EnableDistributedLocking} turned locking on anyway, it says so at INFO instead.
 */
public final class DisabledLockingWarning implements SmartInitializingSingleton, BeanFactoryAware {
  private static final Logger LOG = LoggerFactory.getLogger(DisabledLockingWarning.class);

  private final String setting;
  private @Nullable ConfigurableListableBeanFactory beanFactory;

  /**
   * Creates the warning.
   *
   * @param setting the setting that turned locking off, named in the message
   */
  public DisabledLockingWarning(String setting) {
    this.setting = setting;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    if (beanFactory instanceof BeanDefinitionRegistry registry
        && LockingInfrastructure.isRegistered(registry)) {
      // @EnableDistributedLocking registered the interception anyway: the methods are locked.
      LOG.info("Locking is on through @EnableDistributedLocking, although {}", setting);
      return;
    }
    int methods = countAnnotatedMethods();
    if (methods > 0) {
      LOG.warn(
          "Locking is disabled ({}): {} @DistributedLock method(s) will run unlocked",
          setting,
          methods);
    }
  }

  /**
   * How many {@code @DistributedLock} methods the context's bean classes have.
   *
   * @return the count
   */
  public int countAnnotatedMethods() {
    ConfigurableListableBeanFactory factory = Objects.requireNonNull(beanFactory);
    Set<Class<?>> seen = new HashSet<>();
    int methods = 0;
    for (String name : factory.getBeanNamesForType(Object.class, true, false)) {
      Class<?> type = AnnotatedBeans.targetClass(factory, name);
      if (type != null && seen.add(type)) {
        methods += AnnotatedBeans.annotatedMethods(type);
      }
    }
    return methods;
  }
}
