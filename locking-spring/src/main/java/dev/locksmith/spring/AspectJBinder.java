package dev.locksmith.spring;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.Signatures;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * In {@link LockingMode#ASPECTJ} mode, hands the Spring-built {@link Locksmith} to the woven aspect
 * ({@code dev.locksmith.aspectj.AspectLocksmith.use(Locksmith)} of {@code locking-aspectj}) as soon
 * as the engine bean is created, which it has made before the first bean with locked methods is
 * initialized, so that woven methods use the application's providers, placeholders, bean references
 * and listeners; {@code reset()} is called when the context closes. Without {@code locking-aspectj}
 * nothing is bound, a warning is logged, and a bean with locked methods stops the start-up ({@link
 * #checkWoven}).
 */
final class AspectJBinder
    implements BeanPostProcessor, BeanFactoryAware, BeanClassLoaderAware, DisposableBean {
  static final String ASPECT_ENGINE_CLASS = "dev.locksmith.aspectj.AspectLocksmith";
  private static final Logger LOG = LoggerFactory.getLogger(AspectJBinder.class);

  private @Nullable Class<?> aspectEngine;
  private @Nullable Locksmith bound;
  private @Nullable BeanFactory beanFactory;
  private boolean binding;

  /** Finds the aspect where the application's classes are loaded from. */
  @Override
  public void setBeanClassLoader(ClassLoader loader) {
    if (ClassUtils.isPresent(ASPECT_ENGINE_CLASS, loader)) {
      aspectEngine = ClassUtils.resolveClassName(ASPECT_ENGINE_CLASS, loader);
    } else {
      aspectEngine = null;
      LOG.warn(
          "locksmith mode is aspectj but {} is not on the class path: add locking-aspectj and"
              + " weave it; a bean with @DistributedLock methods stops the start-up",
          ASPECT_ENGINE_CLASS);
    }
  }

  /** Whether the aspect's engine was set from this context. */
  boolean isBound() {
    return bound != null;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /**
   * Makes the engine bean, and so binds it, before a bean with locked methods is initialized: its
   * init callbacks may call them ({@code @PostConstruct}, {@code afterPropertiesSet}), and the
   * aspect would otherwise build an engine of its own from the system settings alone.
   */
  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    BeanFactory factory = beanFactory;
    if (bound != null
        || binding
        || factory == null
        || aspectEngine == null
        || bean instanceof Locksmith
        || AnnotatedMethods.of(ClassUtils.getUserClass(bean)).isEmpty()) {
      return bean;
    }
    binding = true;
    try {
      factory.getBeanProvider(Locksmith.class).getIfAvailable();
    } catch (BeansException e) {
      // The engine depends on this bean, or fails: it is made (and fails) in its turn.
      LOG.debug("Could not make the Locksmith bean before bean '{}'", beanName, e);
    } finally {
      binding = false;
    }
    return bean;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof Locksmith locksmith && aspectEngine != null) {
      call("use", locksmith);
      bound = locksmith;
      LOG.info("The AspectJ @DistributedLock aspect uses the Locksmith bean '{}'", beanName);
    }
    return bean;
  }

  @Override
  public void destroy() {
    Locksmith ours = bound;
    if (ours != null) {
      // Only if the aspect still uses this context's engine: another context may have set its own.
      call("reset", ours);
      bound = null;
    }
  }

  /**
   * Checks through the aspect ({@code AspectLocksmith.validate}) that the class was woven with it,
   * once it uses this context's engine: without an index of locked methods (compiled without the
   * annotation processor), a class the weaver missed would run every locked method unlocked.
   */
  void checkWoven(Class<?> type) {
    if (aspectEngine == null) {
      throw new LockConfigurationException(
          "@DistributedLock on "
              + Signatures.of(AnnotatedBeans.firstLocked(type))
              + " would run without a lock: locksmith.mode is aspectj (@EnableDistributedLocking"
              + "(mode = LockingMode.ASPECTJ)), and the aspect "
              + ASPECT_ENGINE_CLASS
              + " is not on the class path; add dev.locksmith:locksmith-aspectj and weave it, or"
              + " use proxy mode");
    }
    if (bound != null) {
      call("validate", Class[].class, new Class<?>[] {type});
    }
  }

  private void call(String name, Locksmith argument) {
    call(name, Locksmith.class, argument);
  }

  private void call(String name, Class<?> parameterType, Object argument) {
    Class<?> type = aspectEngine;
    if (type == null) {
      return;
    }
    try {
      Method method = type.getMethod(name, parameterType);
      if (!Modifier.isStatic(method.getModifiers())) {
        throw new IllegalStateException(ASPECT_ENGINE_CLASS + "." + name + " is not static");
      }
      method.invoke(null, argument);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException(
          ASPECT_ENGINE_CLASS + " has no public static " + name + " method", e);
    } catch (InvocationTargetException e) {
      Throwable cause = Objects.requireNonNullElse(e.getCause(), e);
      if (cause instanceof RuntimeException failure) {
        // Such as the weaving check's LockConfigurationException, which the failure analyzer
        // turns into Boot's start-up report.
        throw failure;
      }
      throw new IllegalStateException(
          ASPECT_ENGINE_CLASS + "." + name + " failed: " + cause.getMessage(), cause);
    }
  }
}
