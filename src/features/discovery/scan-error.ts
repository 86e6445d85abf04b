// What a scan error code means, declared beside the code that raises it: the line its error
// records are documented by, and the diagnosis rule that explains a failed run in which it leads
// (the built-in diagnosis needs no model: features/diagnosis/rules-provider.ts).
/** How sure an explanation is (the diagnosis answers with it too). */
export const CONFIDENCE_LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const;
export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

export interface ScanErrorExplanation {
  summary: string;
  causes: string[];
  actions: string[];
  confidence: Confidence;
}

export interface ScanErrorDefinition {
  description: string;
  explanation: ScanErrorExplanation;
}
