/** Where admission reports are written: the API server, or a fake in tests. */
import { isAlreadyExists, isConflict, isNotFound, type KubeResources } from '@edict/kube';
import { REPORTS_API_VERSION } from '../report/labels';
import type { EphemeralReportObject } from '../report/types';

export interface ReportStore {
  /** Creates the report; rejects with `ReportExistsError` when one of that name exists. */
  create(report: EphemeralReportObject): Promise<void>;
  get(
    kind: EphemeralReportObject['kind'],
    name: string,
    namespace?: string,
  ): Promise<EphemeralReportObject | undefined>;
  /** Replaces it (metadata.resourceVersion set); rejects with `ReportConflictError` when stale. */
  replace(report: EphemeralReportObject): Promise<EphemeralReportObject>;
}

export class ReportExistsError extends Error {
  override readonly name = 'ReportExistsError';
}

export class ReportConflictError extends Error {
  override readonly name = 'ReportConflictError';
}

/** The ReportStore over `@edict/kube`'s KubeResources. */
export class KubeReportStore implements ReportStore {
  constructor(private readonly resources: KubeResources) {}

  async create(report: EphemeralReportObject): Promise<void> {
    try {
      // Nothing reads the stored report back: its answer is skipped, not parsed.
      await this.resources.createOnly(report);
    } catch (error) {
      if (isAlreadyExists(error)) throw new ReportExistsError(`${report.kind} ${report.metadata.name} exists`);
      throw error;
    }
  }

  async get(
    kind: EphemeralReportObject['kind'],
    name: string,
    namespace?: string,
  ): Promise<EphemeralReportObject | undefined> {
    try {
      return await this.resources.get<EphemeralReportObject>({
        apiVersion: REPORTS_API_VERSION,
        kind,
        name,
        ...(namespace ? { namespace } : {}),
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async replace(report: EphemeralReportObject): Promise<EphemeralReportObject> {
    try {
      return await this.resources.replace(report);
    } catch (error) {
      if (isConflict(error)) throw new ReportConflictError(`${report.kind} ${report.metadata.name} changed meanwhile`);
      throw error;
    }
  }
}
