package dev.locksmith.samples.springboot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.samples.springboot.TransferLoad.Sent;
import java.util.List;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the smoke tests use of the bank running on a random port, whatever its lock store. */
abstract class RunningBank {
  private static final int THREADS = 8;
  private static final int TRANSFERS_PER_THREAD = 25;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;
  @Autowired Locksmith locksmith;
  @Autowired BalanceReportJob job;
  @Autowired LockEvents events;

  /**
   * Sends 25 transfers from each of 8 threads over HTTP and checks the balances ({@link
   * TransferLoad#sendAndCheckBalances}).
   */
  List<Sent> sendTransfersAndCheckBalances() throws Exception {
    return new TransferLoad(port).sendAndCheckBalances(jdbc, events, THREADS, TRANSFERS_PER_THREAD);
  }
}
