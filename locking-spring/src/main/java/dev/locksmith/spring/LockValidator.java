package dev.locksmith.spring;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.Proxies;
import dev.locksmith.core.internal.Signatures;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @DistributedLock} on every bean once all singletons exist, so that a bad key
 * expression, duration or provider name stops the context at start-up with a message naming the
 * bean, the method and the attribute.
 */
final class LockValidator implements SmartInitializingSingleton, BeanFactoryAware {
  private static final Logger LOG = LoggerFactory.getLogger(LockValidator.class);

  private final LockingMode mode;
  private @Nullable ConfigurableListableBeanFactory beanFactory;

  LockValidator(LockingMode mode) {
    this.mode = mode;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    ConfigurableListableBeanFactory factory = Objects.requireNonNull(beanFactory);
    Locksmith locksmith = null;
    String[] engineNames = {};
    Set<Class<?>> checked = new HashSet<>();
    int methods = 0;
    for (String name : factory.getBeanNamesForType(Object.class, true, false)) {
      Class<?> type = AnnotatedBeans.targetClass(factory, name);
      if (type == null || AnnotatedBeans.annotatedMethods(type) == 0) {
        continue;
      }
      if (locksmith == null) {
        locksmith = factory.getBean(Locksmith.class);
        engineNames = factory.getBeanNamesForType(Locksmith.class, false, false);
      }
      // The interceptor finds the engine at the first call, which records no dependency: without
      // one, Spring destroys the engine before a bean whose destroy method makes a locked call.
      for (String engineName : engineNames) {
        factory.registerDependentBean(engineName, name);
      }
      try {
        if (checked.add(type)) {
          methods += locksmith.validateForInvoke(type);
          if (mode == LockingMode.PROXY) {
            refuseUnproxyable(type);
            refuseWoven(type);
          } else {
            AspectJBinder binder = factory.getBeanProvider(AspectJBinder.class).getIfAvailable();
            if (binder != null) {
              binder.checkWoven(type);
            }
          }
        }
        if (mode == LockingMode.PROXY) {
          refuseUnadvised(factory, name, type);
        }
      } catch (LockConfigurationException e) {
        throw new LockConfigurationException(
            "Bean '" + name + "' (" + type.getName() + "): " + e.getMessage(), e);
      }
    }
    LOG.debug("Validated {} @DistributedLock methods on {} bean classes", methods, checked.size());
  }

  /**
   * A singleton of an annotated class that Spring created without its proxy (created before the
   * auto-proxy creator, because a {@code BeanPostProcessor} needed it) would run every locked
   * method unlocked. An instance of another class registered under the bean's name (a test double)
   * is left alone: it was put there on purpose.
   */
  private static void refuseUnadvised(
      ConfigurableListableBeanFactory factory, String name, Class<?> type) {
    if (!factory.containsBeanDefinition(name)
        || factory.isFactoryBean(name)
        || !factory.containsSingleton(name)) {
      return;
    }
    Object bean = factory.getSingleton(name);
    if (bean == null || isLockAdvised(bean)) {
      return;
    }
    if (ClassUtils.getUserClass(bean) != type) {
      LOG.debug("Bean '{}' is a {}, not an advised {}: not checked", name, bean.getClass(), type);
      return;
    }
    throw new LockConfigurationException(
        "@DistributedLock on "
            + Signatures.of(AnnotatedMethods.of(type).get(0))
            + " would run without a lock: the bean was created before Spring's auto-proxy creator"
            + " could wrap it (a BeanFactoryPostProcessor or BeanPostProcessor needs it, directly"
            + " or through a non-static @Bean method of its @Configuration class; Spring logs that"
            + " it 'is not eligible for getting processed by all BeanPostProcessors'); make that"
            + " @Bean method static, or move the locked methods to a bean of their own");
  }

  private static boolean isLockAdvised(Object bean) {
    return bean instanceof Advised advised
        && Arrays.stream(advised.getAdvisors()).anyMatch(LockAdvisor.class::isInstance);
  }

  /**
   * A class the aspect wove would be locked twice in proxy mode: by the proxy through this engine,
   * then in its woven body through the aspect's own, built from system settings alone (which either
   * has no provider or finds the lock held by the proxy).
   */
  private static void refuseWoven(Class<?> type) {
    WovenClasses.firstWovenMethod(type)
        .ifPresent(
            method -> {
              throw new LockConfigurationException(
                  "@DistributedLock on "
                      + Signatures.of(method)
                      + " is woven with the locking-aspectj aspect, and in proxy mode Spring's"
                      + " proxy locks it too: the woven body would take the lock a second time,"
                      + " through the aspect's own engine, built from system settings alone; set"
                      + " locksmith.mode=aspectj (@EnableDistributedLocking(mode ="
                      + " LockingMode.ASPECTJ)), or build the class without the aspect");
            });
  }

  /** A proxy cannot intercept private, static or final methods: they would run unlocked. */
  private static void refuseUnproxyable(Class<?> type) {
    List<Method> unproxyable = Proxies.notInterceptable(type);
    if (!unproxyable.isEmpty()) {
      throw new LockConfigurationException(
          "@DistributedLock on "
              + Signatures.of(unproxyable.get(0))
              + " would run without a lock: a Spring proxy cannot intercept a "
              + Proxies.NOT_INTERCEPTABLE
              + " method; make it public (or protected) and not final, or use"
              + " locksmith.mode=aspectj with the woven aspect");
    }
  }
}
