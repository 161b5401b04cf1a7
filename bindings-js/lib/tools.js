// What the tools entry (`retryplan/tools`) adds to the default entry's API:
// JSON text, toConfig/toJson, explain, classify, snapshots, redelivery, the
// gRPC and AWS dialects, admission. Built into tools/lib/ beside the tools
// wasm (its `../wasm/retryplan_js.js` is the tools glue there); the default
// entry never imports this module.
export {
  redeliver,
  parseGrpcPushback,
  encodeGrpcTimeout,
  parseGrpcTimeout,
  encodeGrpcTimeoutNs,
  parseGrpcTimeoutNs,
  awsErrorCodeFromResponse,
  awsStandardDependency,
  ServiceConfig,
  remainingBudgetMs,
  admit,
} from '../wasm/retryplan_js.js';
