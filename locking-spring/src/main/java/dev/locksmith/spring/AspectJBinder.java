package dev.locksmith.spring;

import dev.locksmith.core.Locksmith;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * In {@link LockingMode#ASPECTJ} mode, hands the Spring-built {@link Locksmith} to the woven aspect
 * ({@code dev.locksmith.aspectj.AspectLocksmith.use(Locksmith)} of {@code locking-aspectj}) as soon
 * as the engine bean is created, so that woven methods use the application's providers,
 * placeholders, bean references and listeners; {@code reset()} is called when the context closes.
 * Without {@code locking-aspectj} nothing is bound and a warning is logged.
 */
final class AspectJBinder implements BeanPostProcessor, DisposableBean {
  static final String ASPECT_ENGINE_CLASS = "dev.locksmith.aspectj.AspectLocksmith";
  private static final Logger LOG = LoggerFactory.getLogger(AspectJBinder.class);

  private final @Nullable Class<?> aspectEngine;
  private @Nullable Locksmith bound;

  AspectJBinder() {
    ClassLoader loader = AspectJBinder.class.getClassLoader();
    if (ClassUtils.isPresent(ASPECT_ENGINE_CLASS, loader)) {
      aspectEngine = ClassUtils.resolveClassName(ASPECT_ENGINE_CLASS, loader);
    } else {
      aspectEngine = null;
      LOG.warn(
          "locksmith mode is aspectj but {} is not on the class path: add locking-aspectj and"
              + " weave it, or @DistributedLock methods run unlocked",
          ASPECT_ENGINE_CLASS);
    }
  }

  /** Whether the aspect's engine was set from this context. */
  boolean isBound() {
    return bound != null;
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

  private void call(String name, Locksmith argument) {
    Class<?> type = aspectEngine;
    if (type == null) {
      return;
    }
    try {
      Method method = type.getMethod(name, Locksmith.class);
      if (!Modifier.isStatic(method.getModifiers())) {
        throw new IllegalStateException(ASPECT_ENGINE_CLASS + "." + name + " is not static");
      }
      method.invoke(null, argument);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException(
          ASPECT_ENGINE_CLASS + " has no public static " + name + " method for the engine", e);
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
