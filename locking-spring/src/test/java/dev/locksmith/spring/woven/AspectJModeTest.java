package dev.locksmith.spring.woven;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * {@code locksmith.mode=aspectj}: the woven aspect locks the method with the Spring-built engine
 * (placeholders, bean references, listeners) and no proxy is added, so each call locks once.
 */
@AspectJModeBootTest
class AspectJModeTest {
  static final List<String> ACQUIRED = new CopyOnWriteArrayList<>();

  @Autowired WovenLedger ledger;
  @Autowired Locksmith locksmith;

  @BeforeEach
  void clear() {
    ACQUIRED.clear();
  }

  /** The tenant bean that keys refer to. */
  public record Tenant(String id) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    WovenLedger wovenLedger() {
      return new WovenLedger();
    }

    @Bean
    WovenStartup wovenStartup() {
      return new WovenStartup();
    }

    @Bean
    WovenAccounts wovenAccounts() {
      return new WovenAccounts();
    }

    @Bean
    Tenant tenant() {
      return new Tenant("t1");
    }

    @Bean
    LockListener recordingListener() {
      return new LockListener() {
        @Override
        public void acquired(LockEvent event, Duration waited) {
          ACQUIRED.add(event.lockId());
        }
      };
    }
  }

  @Test
  void aWovenMethodCalledWhileItsBeanStartsUsesTheSpringEngine(@Autowired WovenStartup startup) {
    // The engine bean is made for it at once, not after the application's beans.
    assertThat(startup.warmedUpUnder()).isEqualTo("ledger-warm-up");
  }

  @Test
  void wovenMethodIsLockedOnceByTheSpringEngineWithoutAProxy() {
    assertThat(AopUtils.isAopProxy(ledger)).isFalse();
    assertThat(AspectLocksmith.engine()).isSameAs(locksmith);
    assertThat(ledger.post("a-1")).isEqualTo("ledger:t1:a-1");
    assertThat(ACQUIRED).containsExactly("ledger:t1:a-1");
  }
}
